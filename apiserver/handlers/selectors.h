#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "common/result.h"

// Label and field selectors as kubectl sends them (`team=nlp,tier!=web`, `env in (a,b)`,
// `metadata.name=llama-a`).
namespace troupe::apiserver {

struct Requirement {
  enum class Op { Equals, NotEquals, In, NotIn, Exists, DoesNotExist, GreaterThan, LessThan };
  std::string key;
  Op op = Op::Equals;
  std::vector<std::string> values;
};

// Parsed with kube-apiserver's grammar and rules (k8s.io/apimachinery labels.Parse): keys
// are qualified names, values label values, `in`/`notin` take a parenthesised list, `>`
// and `<` an integer; anything else is a BadRequest Error in the real server's words
// ("unable to parse requirement: found '!', expected: identifier").
class LabelSelector {
 public:
  static Result<LabelSelector> parse(const std::string& text);
  bool matches(const nlohmann::json& object) const;
  bool empty() const { return requirements_.empty(); }

 private:
  std::vector<Requirement> requirements_;
};

class FieldSelector {
 public:
  static Result<FieldSelector> parse(const std::string& text);
  bool matches(const nlohmann::json& object) const;
  bool empty() const { return requirements_.empty(); }

 private:
  std::vector<Requirement> requirements_;  // Equals / NotEquals only
};

// A field's value as a field selector compares it: "spec.nodeName" -> the string there,
// "" when absent; numbers and booleans in their JSON spelling.
std::string fieldValue(const nlohmann::json& object, const std::string& path);

}  // namespace troupe::apiserver
