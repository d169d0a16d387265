#include "apiserver/yaml_json.h"

#include <yaml-cpp/yaml.h>

#include <regex>

namespace troupe::apiserver {

namespace {

nlohmann::json convert(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined: return nullptr;
    case YAML::NodeType::Sequence: {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& item : node) out.push_back(convert(item));
      return out;
    }
    case YAML::NodeType::Map: {
      nlohmann::json out = nlohmann::json::object();
      for (const auto& item : node) out[item.first.as<std::string>()] = convert(item.second);
      return out;
    }
    case YAML::NodeType::Scalar: break;
  }
  const std::string& text = node.Scalar();
  if (node.Tag() == "!" || node.Tag() == "tag:yaml.org,2002:str") return text;  // quoted
  static const std::regex integer("[-+]?[0-9]+");
  static const std::regex floating("[-+]?([0-9]*\\.[0-9]+|[0-9]+\\.[0-9]*)([eE][-+]?[0-9]+)?");
  if (text == "null" || text == "~" || text == "Null" || text == "NULL") return nullptr;
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  if (std::regex_match(text, integer)) {
    try {
      return std::stoll(text);
    } catch (...) {
      return text;
    }
  }
  if (std::regex_match(text, floating)) return std::stod(text);
  return text;
}

}  // namespace

Result<std::vector<nlohmann::json>> yamlDocumentsToJson(const std::string& text) {
  try {
    std::vector<nlohmann::json> out;
    for (const auto& doc : YAML::LoadAll(text)) {
      if (doc.IsNull()) continue;
      out.push_back(convert(doc));
    }
    return out;
  } catch (const YAML::Exception& e) {
    return makeError(ErrorCode::BadRequest, "",
                     std::string("error converting YAML to JSON: ") + e.what());
  }
}

Result<nlohmann::json> parseJsonOrYaml(const std::string& text) {
  auto parsed = nlohmann::json::parse(text, nullptr, false);
  if (!parsed.is_discarded()) return parsed;
  auto docs = yamlDocumentsToJson(text);
  if (!docs) return docs.error();
  if (docs->size() != 1)
    return makeError(ErrorCode::BadRequest, "",
                     "expected one YAML document, found " + std::to_string(docs->size()));
  return docs->front();
}

}  // namespace troupe::apiserver
