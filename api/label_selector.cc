#include "api/label_selector.h"

#include <fmt/format.h>

#include <algorithm>

#include "api/field_error.h"
#include "api/json_fields.h"
#include "api/names.h"

namespace troupe::api {

using nlohmann::json;

LabelSelector LabelSelector::fromJson(const json& selector, const std::string& path,
                                      std::vector<Error>& errors) {
  JsonFields f(errors);
  LabelSelector out;
  if (!selector.is_object()) {
    if (!selector.is_null()) f.typeError(path, selector, "object");
    return out;
  }
  out.match_labels = f.stringMap(selector, "matchLabels", path + ".matchLabels");
  const std::string list_path = path + ".matchExpressions";
  if (const json* list = f.array(selector, "matchExpressions", list_path)) {
    for (size_t i = 0; i < list->size(); ++i) {
      const json& r = (*list)[i];
      std::string p = indexPath(list_path, i);
      if (!r.is_object()) {
        f.typeError(p, r, "object");
        continue;
      }
      LabelSelectorRequirement req;
      req.key = f.string(r, "key", p + ".key").value_or("");
      req.operator_ = f.string(r, "operator", p + ".operator").value_or("");
      req.values = f.stringList(r, "values", p + ".values");
      out.match_expressions.push_back(std::move(req));
    }
  }
  return out;
}

json LabelSelector::toJson() const {
  json out = json::object();
  if (!match_labels.empty()) out["matchLabels"] = match_labels;
  if (!match_expressions.empty()) {
    json list = json::array();
    for (const auto& r : match_expressions) {
      json item = {{"key", r.key}, {"operator", r.operator_}};
      if (!r.values.empty()) item["values"] = r.values;
      list.push_back(std::move(item));
    }
    out["matchExpressions"] = std::move(list);
  }
  return out;
}

bool LabelSelector::matches(const std::map<std::string, std::string>& labels) const {
  for (const auto& [key, value] : match_labels) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  for (const auto& r : match_expressions) {
    auto it = labels.find(r.key);
    const bool has = it != labels.end();
    const bool listed =
        has && std::find(r.values.begin(), r.values.end(), it->second) != r.values.end();
    if (r.operator_ == "In" && !listed) return false;
    if (r.operator_ == "NotIn" && listed) return false;
    if (r.operator_ == "Exists" && !has) return false;
    if (r.operator_ == "DoesNotExist" && has) return false;
    if (r.operator_ != "In" && r.operator_ != "NotIn" && r.operator_ != "Exists" &&
        r.operator_ != "DoesNotExist")
      return false;  // an operator validate() refuses never matches
  }
  return true;
}

void LabelSelector::validate(const std::string& path, std::vector<Error>& errors) const {
  const std::string labels_path = path + ".matchLabels";
  for (const auto& [key, value] : match_labels) {
    if (auto why = checkQualifiedName(key)) errors.push_back(invalid(labels_path, key, *why));
    if (auto why = checkLabelValue(value)) errors.push_back(invalid(labels_path, value, *why));
  }
  for (size_t i = 0; i < match_expressions.size(); ++i) {
    const auto& r = match_expressions[i];
    std::string p = indexPath(path + ".matchExpressions", i);
    if (r.operator_ == "In" || r.operator_ == "NotIn") {
      if (r.values.empty())
        errors.push_back(
            required(p + ".values", "must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (r.operator_ == "Exists" || r.operator_ == "DoesNotExist") {
      if (!r.values.empty())
        errors.push_back(forbidden(
            p + ".values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    } else {
      errors.push_back(
          notSupported(p + ".operator", r.operator_, {"In", "NotIn", "Exists", "DoesNotExist"}));
    }
    if (auto why = checkQualifiedName(r.key)) errors.push_back(invalid(p + ".key", r.key, *why));
  }
}

std::string LabelSelector::describe() const {
  std::vector<std::string> parts;
  for (const auto& [key, value] : match_labels) parts.push_back(key + "=" + value);
  for (const auto& r : match_expressions) {
    std::string values = fmt::format("{}", fmt::join(r.values, ","));
    if (r.operator_ == "In") parts.push_back(fmt::format("{} in ({})", r.key, values));
    if (r.operator_ == "NotIn") parts.push_back(fmt::format("{} notin ({})", r.key, values));
    if (r.operator_ == "Exists") parts.push_back(r.key);
    if (r.operator_ == "DoesNotExist") parts.push_back("!" + r.key);
  }
  return fmt::format("{}", fmt::join(parts, ","));
}

}  // namespace troupe::api
