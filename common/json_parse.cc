#include "common/json_parse.h"

#include <simdjson.h>

#include <cstdint>
#include <iterator>
#include <string>

namespace troupe {
namespace {

using nlohmann::json;
namespace dom = simdjson::dom;

// Builds the tree as nlohmann's parser does (see parseJson). Recursion depth is bounded by
// simdjson's own limit (1,024 by default).
json toJson(dom::element element) {
  switch (element.type()) {
    case dom::element_type::OBJECT: {
      json object(json::value_t::object);
      auto& members = object.get_ref<json::object_t&>();
      for (auto [key, value] : dom::object(element)) {
        // Keys usually come sorted (nlohmann writes them so): appending at the end is then
        // constant time. Otherwise, and for a repeated key, insert_or_assign keeps the
        // last value, as nlohmann does.
        if (members.empty() || std::prev(members.end())->first < key) {
          members.emplace_hint(members.end(), std::string(key), toJson(value));
        } else {
          members.insert_or_assign(std::string(key), toJson(value));
        }
      }
      return object;
    }
    case dom::element_type::ARRAY: {
      json array(json::value_t::array);
      auto& items = array.get_ref<json::array_t&>();
      dom::array source(element);
      items.reserve(source.size());
      for (dom::element item : source) items.push_back(toJson(item));
      return array;
    }
    case dom::element_type::STRING: return json(std::string(std::string_view(element)));
    case dom::element_type::INT64: {
      const std::int64_t value(element);
      return value >= 0 ? json(static_cast<std::uint64_t>(value)) : json(value);
    }
    case dom::element_type::UINT64: return json(std::uint64_t(element));
    case dom::element_type::DOUBLE: return json(double(element));
    case dom::element_type::BOOL: return json(bool(element));
    case dom::element_type::NULL_VALUE: return json(nullptr);
  }
  return json(json::value_t::discarded);
}

// Texts above this size get a parser of their own: a thread's reusable parser keeps the
// capacity of the largest text it has read, and one list of 100,000 objects would leave
// hundreds of MB behind on that thread.
constexpr std::size_t kReusedParserLimit = 1 << 20;

// The tree of `text` read by `parser`, or nlohmann's answer where simdjson refuses it.
json parseWith(dom::parser& parser, std::string_view text) {
  dom::element root;
  // realloc_if_needed: simdjson reads up to 64 bytes past the end, so it copies the text
  // into a padded buffer (a memcpy of a few KB, cheap beside the parse).
  if (parser.parse(text.data(), text.size(), /*realloc_if_needed=*/true).get(root) !=
      simdjson::SUCCESS) {
    return json::parse(text, nullptr, /*allow_exceptions=*/false);
  }
  return toJson(root);
}

}  // namespace

json parseJson(std::string_view text) {
  if (text.size() > kReusedParserLimit) {
    dom::parser one_off;
    return parseWith(one_off, text);
  }
  thread_local dom::parser reused;
  return parseWith(reused, text);
}

}  // namespace troupe
