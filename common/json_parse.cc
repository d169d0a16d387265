#include "common/json_parse.h"

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

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

// nlohmann's SAX events to a tree, refusing what an untrusted text must not hold: nesting
// past `max_depth_` and non-finite numbers (nlohmann reports those as parse errors). Used
// where simdjson refuses a text: the error then comes with nlohmann's line and column, and
// the texts simdjson cannot type (integers beyond 64 bits) get nlohmann's types. nlohmann's
// parser keeps its own stack, so no text makes it recurse.
class LimitedTreeBuilder {
 public:
  explicit LimitedTreeBuilder(std::size_t max_depth) : max_depth_(max_depth) {}

  bool null() { return add(json(nullptr)); }
  bool boolean(bool value) { return add(json(value)); }
  bool number_integer(json::number_integer_t value) { return add(json(value)); }
  bool number_unsigned(json::number_unsigned_t value) { return add(json(value)); }
  bool number_float(json::number_float_t value, const std::string& text) {
    if (!std::isfinite(value)) return fail("number " + text + " is out of range");
    return add(json(value));
  }
  bool string(json::string_t& value) { return add(json(std::move(value))); }
  bool binary(json::binary_t& value) { return add(json(std::move(value))); }
  bool start_object(std::size_t) { return open(json::value_t::object, '{'); }
  bool key(json::string_t& value) {
    key_ = std::move(value);
    return true;
  }
  bool end_object() { return close(); }
  bool start_array(std::size_t) { return open(json::value_t::array, '['); }
  bool end_array() { return close(); }
  template <typename Exception>
  bool parse_error(std::size_t, const std::string& token, const Exception& e) {
    // 406: a number beyond a double, which nlohmann reports before it is passed on.
    if (e.id == 406) return fail("number " + token + " is out of range");
    if (error_.empty()) error_ = e.what();
    return false;
  }

  const std::string& error() const { return error_; }
  json take() { return std::move(root_); }

 private:
  json* add(json value) {
    if (open_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    json& parent = *open_.back();
    if (parent.is_array()) {
      auto& items = parent.get_ref<json::array_t&>();
      items.push_back(std::move(value));
      return &items.back();
    }
    json& slot = parent.get_ref<json::object_t&>()[key_];
    slot = std::move(value);
    return &slot;
  }
  bool open(json::value_t type, char bracket) {
    if (open_.size() >= max_depth_) {
      return fail(std::string("invalid character '") + bracket + "' exceeded max depth");
    }
    open_.push_back(add(json(type)));
    return true;
  }
  bool close() {
    open_.pop_back();
    return true;
  }
  bool fail(std::string why) {
    if (error_.empty()) error_ = std::move(why);
    return false;
  }

  std::size_t max_depth_;
  json root_;
  std::vector<json*> open_;  // the containers being filled, outermost first
  std::string key_;
  std::string error_;
};

Result<json> parseLimitedWith(dom::parser& parser, std::string_view text, std::size_t max_depth) {
  if (parser.max_depth() != max_depth &&
      parser.allocate(std::max<std::size_t>(text.size(), 1 << 16), max_depth) !=
          simdjson::SUCCESS) {
    return makeError(ErrorCode::Internal, "", "cannot allocate a JSON parser");
  }
  dom::element root;
  if (parser.parse(text.data(), text.size(), /*realloc_if_needed=*/true).get(root) ==
      simdjson::SUCCESS) {
    // The depth is within max_depth here, so is toJson's recursion.
    return toJson(root);
  }
  LimitedTreeBuilder builder(max_depth);
  if (json::sax_parse(text, &builder, json::input_format_t::json, /*strict=*/true)) {
    return builder.take();
  }
  return makeError(ErrorCode::BadRequest, "", builder.error());
}

}  // namespace

Result<json> parseUntrustedJson(std::string_view text, std::size_t max_depth) {
  if (text.size() > kReusedParserLimit) {
    dom::parser one_off;
    return parseLimitedWith(one_off, text, max_depth);
  }
  thread_local dom::parser reused;
  return parseLimitedWith(reused, text, max_depth);
}

bool nestsDeeperThan(const json& value, std::size_t max_depth) {
  std::vector<std::pair<const json*, std::size_t>> pending{{&value, 0}};
  while (!pending.empty()) {
    auto [node, depth] = pending.back();
    pending.pop_back();
    if (!node->is_structured()) continue;
    if (depth + 1 > max_depth) return true;
    for (const auto& child : *node) pending.emplace_back(&child, depth + 1);
  }
  return false;
}

std::size_t compactJsonSize(const json& value, std::size_t stop_at) {
  auto quoted = [](const std::string& text) {
    std::size_t n = text.size() + 2;
    for (char c : text) {
      if (c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t') {
        n += 1;  // a two-character escape
      } else if (static_cast<unsigned char>(c) < 0x20) {
        n += 5;  // \u00XX
      }
    }
    return n;
  };
  std::size_t size = 0;
  std::vector<const json*> pending{&value};
  while (!pending.empty() && size <= stop_at) {
    const json* node = pending.back();
    pending.pop_back();
    if (node->is_object()) {
      size += 2 + (node->empty() ? 0 : node->size() - 1);  // braces and commas
      for (auto it = node->begin(); it != node->end(); ++it) {
        size += quoted(it.key()) + 1;  // the key and its colon
        pending.push_back(&it.value());
      }
    } else if (node->is_array()) {
      size += 2 + (node->empty() ? 0 : node->size() - 1);
      for (const auto& item : *node) pending.push_back(&item);
    } else if (node->is_string()) {
      size += quoted(node->get_ref<const std::string&>());
    } else {
      size += node->dump().size();
    }
  }
  return size;
}

json parseJson(std::string_view text) {
  if (text.size() > kReusedParserLimit) {
    dom::parser one_off;
    return parseWith(one_off, text);
  }
  thread_local dom::parser reused;
  return parseWith(reused, text);
}

}  // namespace troupe
