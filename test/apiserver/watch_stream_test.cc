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

// Makes the namespace "fixtures" and returns the ConfigMap kind to write objects with.
apiserver::ResourceKind fixturesConfigMaps(InProcessServer& server) {
  REQUIRE(server.send("POST", "/api/v1/namespaces", R"({"metadata":{"name":"fixtures"}})").status ==
          201);
  auto kind = server.server().objects().registry().find("", "v1", "configmaps");
  REQUIRE(kind);
  return *kind;
}

TEST_CASE("a burst of watch events reaches the client as one chunk per event, in order",
          "[apiserver][watch]") {
  InProcessServer server;
  auto& objects = server.server().objects();
  auto kind = fixturesConfigMaps(server);
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
    REQUIRE(objects.create(kind, "fixtures", object, false));
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

// The events of a watch, read with curl until the server ends it at timeoutSeconds.
std::vector<json> watchEvents(InProcessServer& server, const std::string& query) {
  auto raw = runCommand("curl -sk --max-time 20 -H 'Authorization: Bearer " + server.adminToken() +
                            "' 'https://127.0.0.1:" + std::to_string(server.port()) +
                            "/api/v1/namespaces/fixtures/configmaps?watch=true&timeoutSeconds=1&" +
                            query + "'",
                        /*with_stderr=*/false);
  REQUIRE(raw.exit_code == 0);
  std::vector<json> events;
  std::size_t at = 0;
  for (std::size_t nl; (nl = raw.output.find('\n', at)) != std::string::npos; at = nl + 1)
    events.push_back(json::parse(raw.output.substr(at, nl - at)));
  return events;
}

std::vector<std::string> typesAndNames(const std::vector<json>& events) {
  std::vector<std::string> out;
  for (const auto& e : events)
    out.push_back(e["type"].get<std::string>() + " " +
                  e["object"]["metadata"]["name"].get<std::string>());
  return out;
}

TEST_CASE("a selector watch reports objects as they start and stop matching",
          "[apiserver][watch]") {
  InProcessServer server;
  auto& objects = server.server().objects();
  auto kind = fixturesConfigMaps(server);
  auto configMap = [](const std::string& name, const std::string& team, const std::string& v) {
    json object = {{"apiVersion", "v1"},
                   {"kind", "ConfigMap"},
                   {"metadata", {{"name", name}}},
                   {"data", {{"v", v}}}};
    if (!team.empty()) object["metadata"]["labels"] = {{"team", team}};
    return object;
  };
  auto update = [&](const json& object) {
    REQUIRE(objects.update(kind, "fixtures", object["metadata"]["name"], object,
                           apiserver::Subresource::Main, false));
  };
  // `a` matches before the watch's resourceVersion: a client that listed then has it.
  REQUIRE(objects.create(kind, "fixtures", configMap("a", "x", "1"), false));
  auto listed_at = objects.store().currentRevision();
  REQUIRE(objects.create(kind, "fixtures", configMap("b", "", "1"), false));   // no event
  update(configMap("b", "x", "2"));                                            // b comes
  update(configMap("a", "y", "2"));                                            // a goes
  update(configMap("a", "y", "3"));                                            // no event
  update(configMap("b", "x", "3"));                                            // b changes
  REQUIRE(objects.remove(kind, "fixtures", "b", apiserver::DeleteOptions{}));  // b goes
  REQUIRE(objects.create(kind, "fixtures", configMap("c", "x", "1"), false));  // c comes
  update(configMap("a", "x", "4"));                                            // a comes back

  SECTION("from a resourceVersion, as an informer resumes") {
    auto events =
        watchEvents(server, "labelSelector=team%3Dx&resourceVersion=" + std::to_string(listed_at));
    CHECK(typesAndNames(events) == std::vector<std::string>{"ADDED b", "DELETED a", "MODIFIED b",
                                                            "DELETED b", "ADDED c", "ADDED a"});
    // The DELETED of an object that left names it with the revision that made it leave.
    REQUIRE(events.size() == 6);
    CHECK(events[1]["object"]["metadata"]["labels"]["team"] == "y");
  }
  SECTION("from now, after the initial list") {
    update(configMap("c", "z", "2"));  // c goes
    auto events = watchEvents(server, "labelSelector=team%3Dx");
    // Only what matches now is listed; c's leaving happened before the watch.
    CHECK(typesAndNames(events) == std::vector<std::string>{"ADDED a"});
  }
  SECTION("a watch without a selector is told every write as it was") {
    auto events = watchEvents(server, "resourceVersion=" + std::to_string(listed_at));
    CHECK(typesAndNames(events) == std::vector<std::string>{"ADDED b", "MODIFIED b", "MODIFIED a",
                                                            "MODIFIED a", "MODIFIED b", "DELETED b",
                                                            "ADDED c", "MODIFIED a"});
  }
}

}  // namespace
}  // namespace troupe::testing
