#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.h"

namespace troupe::api {

enum class SelectorOperator { In, NotIn, Exists, DoesNotExist };

struct LabelSelectorRequirement {
  std::string key;
  std::string operator_;  // as written; validate() refuses anything but the four operators
  std::vector<std::string> values;
};

// A Kubernetes metav1.LabelSelector: every matchLabels pair and every requirement must
// hold. An empty selector matches everything, as in Kubernetes.
struct LabelSelector {
  std::map<std::string, std::string> match_labels;
  std::vector<LabelSelectorRequirement> match_expressions;

  // Decodes the selector at `path`, appending type errors.
  static LabelSelector fromJson(const nlohmann::json& selector, const std::string& path,
                                std::vector<Error>& errors);
  nlohmann::json toJson() const;
  bool matches(const std::map<std::string, std::string>& labels) const;
  // In apimachinery's words (ValidateLabelSelector): label keys and values, and the
  // operators with the values they need.
  void validate(const std::string& path, std::vector<Error>& errors) const;
  // "team in (a,b),tier" as `kubectl get -l` writes it.
  std::string describe() const;
};

}  // namespace troupe::api
