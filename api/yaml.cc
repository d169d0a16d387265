#include "api/yaml.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <limits>
#include <regex>
#include <set>

namespace troupe::api {
namespace {

using nlohmann::json;

Error yamlError(const YAML::Mark& mark, std::string_view what) {
  if (mark.is_null()) return Error{ErrorCode::BadRequest, "", fmt::format("yaml: {}", what)};
  return Error{ErrorCode::BadRequest, "",
               fmt::format("yaml: line {}, column {}: {}", mark.line + 1, mark.column + 1, what)};
}

std::optional<json> resolveInt(std::string text) {
  text.erase(std::remove(text.begin(), text.end(), '_'), text.end());
  if (text.empty()) return std::nullopt;
  bool negative = false;
  size_t pos = 0;
  if (text[0] == '+' || text[0] == '-') {
    negative = text[0] == '-';
    pos = 1;
  }
  std::string digits = text.substr(pos);
  if (digits.empty()) return std::nullopt;
  int base = 10;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    base = 16;
    digits = digits.substr(2);
  } else if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'o' || digits[1] == 'O')) {
    base = 8;
    digits = digits.substr(2);
  } else if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'b' || digits[1] == 'B')) {
    base = 2;
    digits = digits.substr(2);
  } else if (digits.size() > 1 && digits[0] == '0') {
    base = 8;
    digits = digits.substr(1);
  }
  uint64_t v = 0;
  for (char c : digits) {
    int d = -1;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    if (d < 0 || d >= base) return std::nullopt;
    if (__builtin_mul_overflow(v, static_cast<uint64_t>(base), &v) ||
        __builtin_add_overflow(v, static_cast<uint64_t>(d), &v))
      return std::nullopt;
  }
  constexpr uint64_t kMaxInt = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (negative) {
    if (v > kMaxInt + 1) return std::nullopt;
    if (v == kMaxInt + 1) return json(std::numeric_limits<int64_t>::min());
    return json(-static_cast<int64_t>(v));
  }
  if (v > kMaxInt) return json(v);
  return json(static_cast<int64_t>(v));
}

json floatOrInt(double d) {
  if (std::floor(d) == d && std::fabs(d) < 9.2e18) return json(static_cast<int64_t>(d));
  return json(d);
}

Result<json> resolvePlain(const std::string& text, const YAML::Mark& mark) {
  static const std::set<std::string> kNull = {"", "~", "null", "Null", "NULL"};
  static const std::set<std::string> kTrue = {"true", "True", "TRUE", "yes", "Yes", "YES",
                                              "on",   "On",   "ON",   "y",   "Y"};
  static const std::set<std::string> kFalse = {"false", "False", "FALSE", "no", "No", "NO",
                                               "off",   "Off",   "OFF",   "n",  "N"};
  static const std::regex kFloat(R"(^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$)");
  if (kNull.count(text)) return json(nullptr);
  if (kTrue.count(text)) return json(true);
  if (kFalse.count(text)) return json(false);
  if (text == ".inf" || text == ".Inf" || text == ".INF" || text == "+.inf" || text == "-.inf" ||
      text == "-.Inf" || text == ".nan" || text == ".NaN" || text == ".NAN") {
    return yamlError(mark, fmt::format("{} cannot be represented in JSON", text));
  }
  char first = text[0];
  if ((first >= '0' && first <= '9') || first == '+' || first == '-' || first == '.') {
    if (auto i = resolveInt(text)) return *i;
    std::string plain = text;
    plain.erase(std::remove(plain.begin(), plain.end(), '_'), plain.end());
    if (std::regex_match(plain, kFloat)) {
      double d = std::strtod(plain.c_str(), nullptr);
      if (!std::isfinite(d)) return yamlError(mark, fmt::format("{} is out of range", text));
      return floatOrInt(d);
    }
  }
  return json(text);
}

Result<json> convert(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null: return json(nullptr);
    case YAML::NodeType::Scalar: {
      const std::string& tag = node.Tag();
      const std::string& text = node.Scalar();
      if (tag == "!" || tag == "tag:yaml.org,2002:str" || tag == "!!str") return json(text);
      if (tag == "?" || tag.empty()) return resolvePlain(text, node.Mark());
      if (tag == "tag:yaml.org,2002:int" || tag == "!!int") {
        if (auto i = resolveInt(text)) return *i;
        return yamlError(node.Mark(), fmt::format("cannot decode !!str `{}` as a !!int", text));
      }
      if (tag == "tag:yaml.org,2002:float" || tag == "!!float") {
        auto v = resolvePlain(text, node.Mark());
        if (v && v->is_number()) return v;
        return yamlError(node.Mark(), fmt::format("cannot decode `{}` as a !!float", text));
      }
      if (tag == "tag:yaml.org,2002:bool" || tag == "!!bool") {
        auto v = resolvePlain(text, node.Mark());
        if (v && v->is_boolean()) return v;
        return yamlError(node.Mark(), fmt::format("cannot decode `{}` as a !!bool", text));
      }
      if (tag == "tag:yaml.org,2002:null" || tag == "!!null") return json(nullptr);
      return resolvePlain(text, node.Mark());
    }
    case YAML::NodeType::Sequence: {
      json out = json::array();
      for (const auto& item : node) {
        auto v = convert(item);
        if (!v) return v;
        out.push_back(std::move(*v));
      }
      return out;
    }
    case YAML::NodeType::Map: {
      json out = json::object();
      for (const auto& entry : node) {
        if (!entry.first.IsScalar() && !entry.first.IsNull()) {
          return yamlError(entry.first.Mark(), "mapping keys must be scalars");
        }
        std::string key = entry.first.IsNull() ? "null" : entry.first.Scalar();
        if (out.contains(key)) {
          return yamlError(entry.first.Mark(),
                           fmt::format("mapping key \"{}\" already defined", key));
        }
        auto v = convert(entry.second);
        if (!v) return v;
        out[key] = std::move(*v);
      }
      return out;
    }
  }
  return json(nullptr);
}

}  // namespace

Result<std::vector<json>> parseYamlDocuments(std::string_view text) {
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(std::string(text));
  } catch (const YAML::Exception& e) {
    return yamlError(e.mark, e.msg);
  } catch (const std::exception& e) {
    return Error{ErrorCode::BadRequest, "", fmt::format("yaml: {}", e.what())};
  }
  std::vector<json> out;
  try {
    for (const auto& doc : docs) {
      auto v = convert(doc);
      if (!v) return v.error();
      if (v->is_null()) continue;
      out.push_back(std::move(*v));
    }
  } catch (const YAML::Exception& e) {
    return yamlError(e.mark, e.msg);
  }
  return out;
}

Result<json> parseYaml(std::string_view text) {
  auto docs = parseYamlDocuments(text);
  if (!docs) return docs.error();
  if (docs->size() != 1) {
    return Error{ErrorCode::BadRequest, "",
                 fmt::format("yaml: expected one document, found {}", docs->size())};
  }
  return std::move(docs->front());
}

Result<json> parseJson(std::string_view text) {
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    return Error{ErrorCode::BadRequest, "", fmt::format("json parse error: {}", e.what())};
  }
}

}  // namespace troupe::api
