// A watch's bytes on the wire: however the server joins queued events into writes, the
// client reads one HTTP chunk per event, each one JSON line, in revision order. Read with
// curl --raw, so the chunk framing itself is checked, not only the decoded body.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "test/support/command.h"
#include "test/support/in_process_server.h"

namespace troupe::testing {
namespace {

using json = nlohmann::json;

struct ChunkedBody {
  std::vector<std::string> chunks;
  bool ended = false;  // the last chunk ("0\r\n\r\n") was read
  std::string error;   // the first framing error, if any
};

// Parses "<hex size>\r\n<data>\r\n"... "0\r\n\r\n" (no extensions, no trailers).
ChunkedBody parseChunked(const std::string& wire) {
  ChunkedBody body;
  std::size_t at = 0;
  while (at < wire.size()) {
    auto line_end = wire.find("\r\n", at);
    if (line_end == std::string::npos) {
      body.error = "chunk size line without CRLF at byte " + std::to_string(at);
      return body;
    }
    std::string hex = wire.substr(at, line_end - at);
    if (hex.empty() || hex.find_first_not_of("0123456789abcdef") != std::string::npos) {
      body.error = "bad chunk size '" + hex + "' at byte " + std::to_string(at);
      return body;
    }
    std::size_t size = std::stoul(hex, nullptr, 16);
    at = line_end + 2;
    if (size == 0) {
      body.ended = wire.compare(at, std::string::npos, "\r\n") == 0;
      if (!body.ended) body.error = "bytes after the last chunk";
      return body;
    }
    if (at + size + 2 > wire.size() || wire.compare(at + size, 2, "\r\n") != 0) {
      body.error = "chunk of " + hex + " bytes not followed by CRLF at byte " + std::to_string(at);
      return body;
    }
    body.chunks.push_back(wire.substr(at, size));
    at += size + 2;
  }
  return body;
}

TEST_CASE("a burst of watch events reaches the client as one chunk per event, in order",
          "[apiserver][watch]") {
  InProcessServer server;
  REQUIRE(server.send("POST", "/api/v1/namespaces", R"({"metadata":{"name":"fixtures"}})").status ==
          201);
  auto& objects = server.server().objects();
  auto kind = objects.registry().find("", "v1", "configmaps");
  REQUIRE(kind);
  auto before = objects.store().currentRevision();

  // Sizes from 0 to ~20 KB: chunk sizes of one to four hex digits, events larger than one
  // TLS record, and more than one joined write's worth (64 KiB) queued at once.
  constexpr int kEvents = 120;
  for (int i = 0; i < kEvents; ++i) {
    json object = {
        {"apiVersion", "v1"},
        {"kind", "ConfigMap"},
        {"metadata", {{"name", "burst-" + std::to_string(i)}}},
        {"data", {{"payload", std::string(static_cast<std::size_t>(i * 397 % 20011), 'x')}}}};
    REQUIRE(objects.create(*kind, "fixtures", object, false));
  }

  // A watch from before the burst is sent the whole burst at once when it starts.
  auto raw = runCommand(
      "curl -sk --raw --max-time 20 -H 'Authorization: Bearer " + server.adminToken() +
          "' 'https://127.0.0.1:" + std::to_string(server.port()) +
          "/api/v1/namespaces/fixtures/configmaps?watch=true&timeoutSeconds=1&resourceVersion=" +
          std::to_string(before) + "'",
      /*with_stderr=*/false);
  REQUIRE(raw.exit_code == 0);

  auto body = parseChunked(raw.output);
  INFO(body.error);
  CHECK(body.error.empty());
  CHECK(body.ended);
  REQUIRE(body.chunks.size() == static_cast<std::size_t>(kEvents));
  std::int64_t last_rv = before;
  for (int i = 0; i < kEvents; ++i) {
    const std::string& chunk = body.chunks[static_cast<std::size_t>(i)];
    INFO("event " << i);
    // One JSON line per chunk: a newline at the end and nowhere else.
    REQUIRE(chunk.find('\n') == chunk.size() - 1);
    auto event = json::parse(chunk);
    // Byte for byte the serialized event object (the server splices the line together).
    CHECK(event.dump() + "\n" == chunk);
    CHECK(event["type"] == "ADDED");
    CHECK(event["object"]["metadata"]["name"] == "burst-" + std::to_string(i));
    CHECK(event["object"]["data"]["payload"].get<std::string>().size() ==
          static_cast<std::size_t>(i * 397 % 20011));
    auto rv = std::stoll(event["object"]["metadata"]["resourceVersion"].get<std::string>());
    CHECK(rv > last_rv);
    last_rv = rv;
  }
}

}  // namespace
}  // namespace troupe::testing
