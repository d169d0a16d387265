// Built-in objects in Kubernetes' protobuf encoding, as kubectl's typed `create` commands
// send them, decoded to the JSON the server stores.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "apiserver/protobuf/object_decoder.h"
#include "apiserver/protobuf/wire_reader.h"

namespace troupe::apiserver::protobuf {
namespace {

using json = nlohmann::json;

// A tiny protobuf writer for the test's own messages.
std::string varint(std::uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}
std::string bytesField(int number, const std::string& bytes) {
  return varint(static_cast<std::uint64_t>(number) << 3 | 2) + varint(bytes.size()) + bytes;
}
std::string varintField(int number, std::uint64_t value) {
  return varint(static_cast<std::uint64_t>(number) << 3) + varint(value);
}
std::string mapEntry(int number, const std::string& key, const std::string& value) {
  return bytesField(number, bytesField(1, key) + bytesField(2, value));
}
std::string envelope(const std::string& api_version, const std::string& kind,
                     const std::string& raw) {
  std::string type_meta = bytesField(1, api_version) + bytesField(2, kind);
  return std::string("k8s\0", 4) + bytesField(1, type_meta) + bytesField(2, raw) +
         bytesField(3, "") + bytesField(4, "");
}

TEST_CASE("a protobuf Namespace and ConfigMap decode to their JSON", "[apiserver][protobuf]") {
  std::string meta = bytesField(1, "team-b") + mapEntry(11, "owner", "nlp");
  auto ns = decodeObject(
      envelope("v1", "Namespace", bytesField(1, meta) + bytesField(2, "") + bytesField(3, "")));
  REQUIRE(ns);
  CHECK(*ns == json{{"apiVersion", "v1"},
                    {"kind", "Namespace"},
                    {"metadata", {{"name", "team-b"}, {"labels", {{"owner", "nlp"}}}}},
                    {"spec", json::object()},
                    {"status", json::object()}});

  std::string cm_meta = bytesField(1, "settings") + bytesField(3, "kdemo");
  auto cm = decodeObject(envelope("v1", "ConfigMap",
                                  bytesField(1, cm_meta) + mapEntry(2, "lr", "0.01") +
                                      mapEntry(3, "blob", std::string("\x00\xff", 2)) +
                                      varintField(4, 1)));
  REQUIRE(cm);
  CHECK((*cm)["data"] == json{{"lr", "0.01"}});
  CHECK((*cm)["binaryData"] == json{{"blob", "AP8="}});
  CHECK((*cm)["immutable"] == true);
  CHECK((*cm)["metadata"]["namespace"] == "kdemo");
}

TEST_CASE("a protobuf PriorityClass keeps its value and Secrets their bytes",
          "[apiserver][protobuf]") {
  auto pc = decodeObject(envelope(
      "scheduling.k8s.io/v1", "PriorityClass",
      bytesField(1, bytesField(1, "urgent")) + varintField(2, 100000) + bytesField(4, "on call")));
  REQUIRE(pc);
  CHECK((*pc)["value"] == 100000);
  CHECK((*pc)["description"] == "on call");
  // A negative int32 travels as a ten-byte varint.
  auto low = decodeObject(envelope("scheduling.k8s.io/v1", "PriorityClass",
                                   varintField(2, static_cast<std::uint64_t>(-5))));
  REQUIRE(low);
  CHECK((*low)["value"] == -5);

  auto secret = decodeObject(
      envelope("v1", "Secret", mapEntry(2, "token", "s3cret") + bytesField(3, "Opaque")));
  REQUIRE(secret);
  CHECK((*secret)["data"]["token"] == "czNjcmV0");
  CHECK((*secret)["type"] == "Opaque");
}

TEST_CASE("protobuf the decoder does not understand is refused, never half read",
          "[apiserver][protobuf]") {
  // Not the Kubernetes envelope.
  auto plain = decodeObject("{\"kind\":\"Namespace\"}");
  REQUIRE_FALSE(plain);
  CHECK(plain.error().code == ErrorCode::BadRequest);
  // A kind it has no description for.
  auto deployment = decodeObject(envelope("apps/v1", "Deployment", ""));
  REQUIRE_FALSE(deployment);
  CHECK(deployment.error().code == ErrorCode::UnsupportedMedia);
  CHECK(deployment.error().message.find("apps/v1 Deployment") != std::string::npos);
  // A field it does not know: refused rather than dropped.
  auto unknown = decodeObject(envelope("v1", "ConfigMap", bytesField(9, "x")));
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().message.find("field 9 of ConfigMap") != std::string::npos);
  // A length running past the end.
  auto truncated = decodeObject(std::string("k8s\0", 4) + "\x0a\x7f" + "ab");
  REQUIRE_FALSE(truncated);
  CHECK(truncated.error().code == ErrorCode::BadRequest);
  // The wrong wire type for a field.
  auto wrong = decodeObject(envelope("v1", "ConfigMap", varintField(1, 3)));
  REQUIRE_FALSE(wrong);
  CHECK(wrong.error().message.find("ConfigMap.metadata") != std::string::npos);
}

TEST_CASE("the wire reader reads every wire type Kubernetes uses", "[apiserver][protobuf]") {
  std::string message = varintField(1, 300) + bytesField(2, "hi") + varint(3 << 3 | 1) +
                        std::string(8, '\x01') + varint(4 << 3 | 5) +
                        std::string("\x02\x00\x00\x00", 4);
  auto fields = readMessage(message);
  REQUIRE(fields);
  REQUIRE(fields->size() == 4);
  CHECK((*fields)[0].varint == 300);
  CHECK((*fields)[1].bytes == "hi");
  CHECK((*fields)[2].varint == 0x0101010101010101ULL);
  CHECK((*fields)[3].varint == 2);
  CHECK_FALSE(readMessage(varint(5 << 3 | 3)));  // a group
}

}  // namespace
}  // namespace troupe::apiserver::protobuf
