#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/json_parse.h"

namespace troupe {
namespace {

using json = nlohmann::json;

json reference(const std::string& text) { return json::parse(text, nullptr, false); }

// Same value, same type at every node (number_unsigned and number_integer compare equal
// with ==, so that alone would not tell them apart), same text when dumped.
void checkIdentical(const json& got, const json& want) {
  REQUIRE(got.type() == want.type());
  if (got.is_object()) {
    REQUIRE(got.size() == want.size());
    auto g = got.begin();
    for (auto w = want.begin(); w != want.end(); ++w, ++g) {
      REQUIRE(g.key() == w.key());
      checkIdentical(g.value(), w.value());
    }
  } else if (got.is_array()) {
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) checkIdentical(got[i], want[i]);
  } else if (!got.is_discarded()) {
    REQUIRE(got == want);
    REQUIRE(got.dump() == want.dump());
  }
}

void checkParsesAsNlohmann(const std::string& text) {
  INFO(text.substr(0, 200));
  checkIdentical(parseJson(text), reference(text));
}

TEST_CASE("every response a real apiserver sent parses as nlohmann parses it", "[json]") {
  std::size_t documents = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(
           std::string(TROUPE_SHARED_DIR) + "/k8s-fixtures")) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    // Whole files (JSON documents, or not JSON at all: both must agree), and each line
    // (watch streams are one event a line).
    checkParsesAsNlohmann(text.str());
    std::istringstream lines(text.str());
    for (std::string line; std::getline(lines, line);) checkParsesAsNlohmann(line);
    if (!reference(text.str()).is_discarded()) ++documents;
  }
  CHECK(documents > 50);
}

TEST_CASE("numbers, strings and keys at the edges parse as nlohmann parses them", "[json]") {
  for (const char* text :
       {"0", "1", "-1", "9223372036854775807", "9223372036854775808", "18446744073709551615",
        "-9223372036854775808",
        // Beyond 64 bits: nlohmann makes a float of them, simdjson refuses them.
        "18446744073709551616", "-9223372036854775809", "123456789012345678901234567890", "1.0",
        "-1.5", "1e2", "1E-2", "0.1", "1.7976931348623157e308", "5e-324", "2.5e-400", "1e400",
        "true", "false", "null", R"("")", R"("a\"b\\c\/d\b\f\n\r\t")", R"("\u0000x")",
        R"("\ud83d\ude00 é ü 中")", R"({"a":1,"a":2})", R"({"b":1,"a":{"d":[],"c":{}}})",
        R"({"k:{\"type\"}":{"\u0001":null}})", R"([1,-1,1.5,"x",true,null,[],{}])",
        " \n\t {\"a\" : [ 1 , 2 ] } \r\n ",
        R"({"metadata":{"annotations":{"x":"{\"nested\":\"json\"}"}}})"}) {
    checkParsesAsNlohmann(text);
  }
}

TEST_CASE("a negative zero is the integer zero, unsigned where nlohmann makes it signed",
          "[json]") {
  auto parsed = parseJson("[-0]");
  REQUIRE(parsed.is_array());
  CHECK(parsed[0] == reference("-0"));
  CHECK(parsed[0].is_number_unsigned());
  CHECK(parsed.dump() == reference("[-0]").dump());
}

TEST_CASE("text that is not one JSON value is discarded, as by nlohmann", "[json]") {
  for (const char* text : {"",
                           " ",
                           "{",
                           "}",
                           "[1,]",
                           R"({"a":})",
                           R"({"a" 1})",
                           "tru",
                           "01",
                           "1.",
                           ".5",
                           "-",
                           "+1",
                           "NaN",
                           "1 2",
                           "{}x",
                           R"("\x")",
                           R"("\ud800")",
                           R"("unterminated)",
                           "[\"a\tb\"]",
                           "/* comment */ {}"}) {
    INFO(text);
    CHECK(reference(text).is_discarded());
    CHECK(parseJson(text).is_discarded());
  }
  // Invalid UTF-8 inside a string.
  CHECK(parseJson("\"\xff\xfe\"").is_discarded());
  CHECK(parseJson("\"\xc3\"").is_discarded());
}

TEST_CASE("nesting beyond simdjson's depth limit still parses", "[json]") {
  // Just past simdjson's 1,024 levels; walked with a loop, not checkIdentical, whose
  // recursion with a Catch assertion per level overflows the stack under AddressSanitizer.
  const std::size_t depth = 1100;
  std::string text(depth, '[');
  text += "1";
  text += std::string(depth, ']');
  const json parsed = parseJson(text);
  const json* node = &parsed;
  for (std::size_t level = 0; level < depth; ++level) {
    REQUIRE(node->is_array());
    REQUIRE(node->size() == 1);
    node = &(*node)[0];
  }
  CHECK(node->is_number_unsigned());
  CHECK(*node == 1);
  CHECK(parsed.dump() == reference(text).dump());
}

TEST_CASE("a text over the reused parser's limit parses too", "[json]") {
  json big = json::array();
  for (int i = 0; i < 40000; ++i)
    big.push_back({{"name", "object-" + std::to_string(i)}, {"i", i}});
  const std::string text = big.dump();
  REQUIRE(text.size() > (1u << 20));
  checkParsesAsNlohmann(text);
  checkParsesAsNlohmann(R"({"small":true})");  // and the thread's parser still works after
}

// A random value: objects with keys in any order (repeats included), arrays, strings with
// escapes and multi-byte characters, integers over the whole 64-bit range, floats.
std::string randomText(std::mt19937_64& rng, int depth) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
  auto randomString = [&] {
    static const std::vector<std::string> pieces = {
        "a",       "z", "name", "metadata",       "\\\"", "\\\\", "\\n", "\\u0007",
        "\\u00e9", "é", "中",   "\\ud83d\\ude00", "{",    "}",    "[",   ",",
        ":",       " ", "0"};
    std::string s = "\"";
    for (int i = pick(6); i > 0; --i) s += pieces[static_cast<std::size_t>(pick(19))];
    return s + "\"";
  };
  const int kind = depth >= 5 ? 2 + pick(6) : pick(8);
  switch (kind) {
    case 0: {
      std::string s = "{";
      for (int i = pick(6); i > 0; --i) {
        s += randomString() + ":" + randomText(rng, depth + 1);
        if (i > 1) s += ",";
      }
      return s + "}";
    }
    case 1: {
      std::string s = "[";
      for (int i = pick(6); i > 0; --i) {
        s += randomText(rng, depth + 1);
        if (i > 1) s += ",";
      }
      return s + "]";
    }
    case 2: return randomString();
    case 3: return std::to_string(static_cast<std::int64_t>(rng()) >> pick(64));
    case 4: return std::to_string(rng() >> pick(64));
    case 5: {
      std::ostringstream out;
      out.precision(1 + pick(17));
      out << (static_cast<double>(static_cast<std::int64_t>(rng())) /
              static_cast<double>(1ull << pick(62)));
      return out.str();
    }
    case 6: return pick(2) ? "true" : "false";
    default: return "null";
  }
}

TEST_CASE("5,000 random documents parse as nlohmann parses them", "[json]") {
  std::mt19937_64 rng(20261125);
  for (int i = 0; i < 5000; ++i) checkParsesAsNlohmann(randomText(rng, 0));
}

TEST_CASE("an untrusted text parses as a trusted one when it is within the limits", "[json]") {
  std::mt19937_64 rng(20261126);
  for (int i = 0; i < 2000; ++i) {
    std::string text = randomText(rng, 0);
    INFO(text.substr(0, 200));
    auto untrusted = parseUntrustedJson(text);
    REQUIRE(untrusted.ok());
    checkIdentical(untrusted.value(), parseJson(text));
  }
}

std::string nested(std::size_t depth, char open, char close, const std::string& inside = "1") {
  std::string text;
  for (std::size_t i = 0; i < depth; ++i) text += open == '{' ? "{\"a\":" : "[";
  text += inside;
  text += std::string(depth, close);
  return text;
}

TEST_CASE("an untrusted text nests at most 1,000 arrays and objects", "[json][limits]") {
  // 1,000 levels parse, on the fast path and on nlohmann's (a 20-digit integer sends a text
  // there); the 1,001st is refused as kube-apiserver words it.
  for (const std::string inside : {"1", "123456789012345678901234567890"}) {
    for (char open : {'[', '{'}) {
      const char close = open == '[' ? ']' : '}';
      INFO(open << " around " << inside);
      auto at_limit = parseUntrustedJson(nested(kMaxJsonDepth, open, close, inside));
      REQUIRE(at_limit.ok());
      CHECK_FALSE(nestsDeeperThan(at_limit.value(), kMaxJsonDepth));
      CHECK(nestsDeeperThan(at_limit.value(), kMaxJsonDepth - 1));
      auto beyond = parseUntrustedJson(nested(kMaxJsonDepth + 1, open, close, inside));
      REQUIRE_FALSE(beyond.ok());
      CHECK(beyond.error().code == ErrorCode::BadRequest);
      CHECK(beyond.error().message ==
            std::string("invalid character '") + open + "' exceeded max depth");
    }
  }
  // The reported crash: 100,000 levels in 200 KB, and unclosed ones, cost no more.
  CHECK_FALSE(parseUntrustedJson(std::string(100000, '[') + std::string(100000, ']')).ok());
  CHECK_FALSE(parseUntrustedJson(std::string(3 << 20, '[')).ok());
}

TEST_CASE("an untrusted text that is not UTF-8 or holds a number beyond a double is refused",
          "[json][limits]") {
  struct Case {
    std::string name;
    std::string text;
    std::string want_in_error;
  };
  const std::vector<Case> cases = {
      {"a byte that starts no character", "{\"a\":\"\xff\"}", "UTF-8"},
      {"a character cut short", "{\"a\":\"\xc3\"}", "UTF-8"},
      {"an overlong encoding", "{\"a\":\"\xc0\xaf\"}", "UTF-8"},
      {"a lone surrogate escape", "{\"a\":\"\\ud800\"}", "surrogate"},
      {"1e400", "{\"a\":1e400}", "1e400 is out of range"},
      {"-1e400", "[-1e400]", "-1e400 is out of range"},
      {"1e309 in a list", "[1, 1e309]", "out of range"},
      {"not JSON", "{\"a\":", "parse error"},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto parsed = parseUntrustedJson(tc.text);
      REQUIRE_FALSE(parsed.ok());
      CHECK(parsed.error().code == ErrorCode::BadRequest);
      CHECK_THAT(parsed.error().message, Catch::Matchers::Contains(tc.want_in_error));
    }
  }
  // At the edges: the largest double, an integer beyond 64 bits (a double, as kube reads it).
  CHECK(parseUntrustedJson("1.7976931348623157e308").ok());
  auto big = parseUntrustedJson("99999999999999999999999");
  REQUIRE(big.ok());
  CHECK(big->is_number_float());
}

TEST_CASE("the size of a tree's compact text is counted without dumping it", "[json]") {
  std::mt19937_64 rng(20261127);
  for (int i = 0; i < 500; ++i) {
    json value = parseJson(randomText(rng, 0));
    if (value.is_discarded()) continue;
    std::string text = value.dump();
    CHECK(compactJsonSize(value, SIZE_MAX) == text.size());
  }
  CHECK(compactJsonSize(json::parse(R"({"a":"x\"y"})"), SIZE_MAX) == 12);
  CHECK(compactJsonSize(json::array({std::string(100, 'x')}), 10) > 10);
}

}  // namespace
}  // namespace troupe
