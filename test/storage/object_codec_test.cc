#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "apiserver/storage/object_codec.h"

namespace troupe::apiserver {
namespace {

using json = nlohmann::json;

// What the store sends for `object` at `revision`, the slow way: encode, decode, dump.
std::string dumped(json object, Revision revision) {
  auto text = encodeObject(object);
  REQUIRE(text.ok());
  return decodeObject(*text, revision).dump();
}

std::string spliced(json object, Revision revision) {
  auto text = encodeObject(object);
  REQUIRE(text.ok());
  return stampRevisionText(*text, revision);
}

// Every JSON object inside `node`, itself included.
void collectObjects(const json& node, std::vector<json>& out) {
  if (node.is_object()) out.push_back(node);
  if (node.is_structured())
    for (const auto& child : node) collectObjects(child, out);
}

TEST_CASE("the spliced text is the dump of every object a real apiserver sent",
          "[storage][codec]") {
  std::vector<json> objects;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(TROUPE_SHARED_DIR) + "/k8s-fixtures")) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    auto parsed = json::parse(in, nullptr, false);
    if (!parsed.is_discarded()) collectObjects(parsed, objects);
  }
  REQUIRE(objects.size() > 500);
  for (const auto& object : objects) {
    INFO(object.dump().substr(0, 200));
    CHECK(spliced(object, 123456) == dumped(object, 123456));
  }
}

TEST_CASE("the resourceVersion goes where dump() sorts it", "[storage][codec]") {
  for (const char* text : {
           R"({})",
           R"({"kind":"X"})",
           R"({"apiVersion":"v1","spec":{}})",
           R"({"metadata":{}})",
           R"({"metadata":{"name":"a"}})",
           R"({"metadata":{"uid":"u"}})",
           R"({"metadata":{"name":"a","uid":"u"},"spec":{"x":[1,{"y":"}"}]}})",
           R"({"metadata":{"resource":1,"resourceVersionX":2,"resourceVersio":3}})",
           // A nested "metadata" sorts before the top-level one: not the place.
           R"({"data":{"metadata":{"x":"}"}},"metadata":{"name":"a"}})",
           R"({"a":[{"metadata":{}}],"metadata":{"labels":{"k":"v}{"}}})",
           // Strings holding quotes, backslashes and braces, before and inside metadata.
           R"({"a":"q\"}{\\","metadata":{"annotations":{"n":"\\\"{"},"name":"\\"}})",
           // Bytes above 0x7f sort after ASCII, as std::string compares them.
           R"({"metadata":{"name":"é","ñ":1,"r":2}})",
           R"({"metadata":{"name":"a"},"zzz":null,"ü":true})",
           R"({"a":1.5e-7,"b":-3,"c":false,"metadata":{"generation":2,"name":"x"}})",
           // Escaped keys sort by their characters: '"' (0x22) before 'a', '\\' (0x5c)
           // after 'R', control characters first.
           R"({"k:{\"type\"}":{},"metadata":{"re\"":1,"re\\":2,"r\u0001":3,"\t":4}})",
           R"({"metadat\u001f":1,"metadata":{"resourceVersio\n":1}})",
       }) {
    INFO(text);
    CHECK(spliced(json::parse(text), 7) == dumped(json::parse(text), 7));
  }
}

TEST_CASE("text not in encodeObject's form is left to the caller to dump", "[storage][codec]") {
  CHECK(stampRevisionText("", 1).empty());
  CHECK(stampRevisionText("[1]", 1).empty());
  CHECK(stampRevisionText(R"({"metadata":)", 1).empty());
  CHECK(stampRevisionText(R"({"metadata":{"name":"a")", 1).empty());
  CHECK(stampRevisionText(R"({"metadata":"x"})", 1).empty());
  // An escape dump() never writes.
  CHECK(stampRevisionText(R"({"a\/b":1,"metadata":{}})", 1).empty());
  CHECK(stampRevisionText(R"({"metadata":{"\u00e9":1}})", 1).empty());
  // Already stamped: not what encodeObject writes.
  CHECK(stampRevisionText(R"({"metadata":{"resourceVersion":"3"}})", 1).empty());
}

// Random objects with keys near "metadata" and "resourceVersion" and strings full of the
// characters a scanner could trip on.
class RandomObjects {
 public:
  json object(int depth) {
    json out = json::object();
    const int members = pick(0, 5);
    for (int i = 0; i < members; ++i) out[key()] = value(depth);
    if (depth == 0) out.erase("metadata");  // the store takes only an object there
    if (depth == 0 && pick(0, 3) > 0) {
      json meta = json::object();
      const int fields = pick(0, 5);
      for (int i = 0; i < fields; ++i) meta[key()] = value(2);
      out["metadata"] = meta;
    }
    return out;
  }

 private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  std::string key() {
    static const std::vector<std::string> keys = {"a",
                                                  "metadata",
                                                  "metadatb",
                                                  "metadat",
                                                  "resourceVersion0",
                                                  "resource",
                                                  "resourceVersiom",
                                                  "resourceVersioo",
                                                  "uid",
                                                  "name",
                                                  "z",
                                                  "ñ",
                                                  "Metadata",
                                                  "r",
                                                  "labels"};
    std::string k = keys[static_cast<std::size_t>(pick(0, static_cast<int>(keys.size()) - 1))];
    if (pick(0, 3) == 0) k += std::to_string(pick(0, 9));
    if (pick(0, 7) == 0) k += text();  // escapes in keys too
    return k;
  }

  std::string text() {
    static const std::vector<std::string> alphabet = {
        "a", "b", "{", "}", "[", "]", "\"", ":", ",", "\\", "/", "\n", "\t", "\x01", " ", "é"};
    std::string s;
    const int n = pick(0, 8);
    for (int i = 0; i < n; ++i) s += alphabet[static_cast<std::size_t>(pick(0, 15))];
    return s;
  }

  json value(int depth) {
    switch (pick(0, depth < 3 ? 6 : 4)) {
      case 0: return text();
      case 1: return pick(-1000, 1000);
      case 2: return pick(0, 1) == 1;
      case 3: return nullptr;
      case 4: return pick(0, 1000) / 7.0;
      case 5: return object(depth + 1);
      default: {
        json array = json::array();
        const int n = pick(0, 3);
        for (int i = 0; i < n; ++i) array.push_back(value(depth + 1));
        return array;
      }
    }
  }

  std::mt19937 rng_{20261125};
};

TEST_CASE("the spliced text is the dump of random objects", "[storage][codec]") {
  RandomObjects random;
  for (int i = 0; i < 5000; ++i) {
    json object = random.object(0);
    INFO(object.dump());
    CHECK(spliced(object, i + 1) == dumped(object, i + 1));
  }
}

}  // namespace
}  // namespace troupe::apiserver
