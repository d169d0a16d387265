#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace troupe::openapi {

// The small part of CEL that Troupe's CRDs and typical x-kubernetes-validations rules use:
//   field selection on `self` / `oldSelf` (self.spec.replicas, self["key"]), has(self.x),
//   == != < <= > >=, &&, ||, !, ternary c ? a : b, + - * / % on ints (checked, no
//   overflow), unary minus, size(x) and x.size(), `in` on lists and maps, int/double/string/
//   bool/null literals, list literals [a, b].
// Anything else (other functions, macros such as all()/exists(), raw or triple-quoted
// strings, bytes) is rejected when the rule is compiled, with the reason, so that a rule
// outside the subset can never pass silently.
class CelProgram {
 public:
  // Compiles `rule`. Errors carry the offending construct and its column.
  static Result<CelProgram> compile(std::string_view rule);

  // Evaluates the rule with `self` (and `oldSelf` when old_self is not null). A rule must
  // evaluate to a bool; anything else, or a runtime error (missing field, division by
  // zero, overflow, mismatched types), is an Error whose message says what happened.
  Result<bool> evaluate(const nlohmann::json& self, const nlohmann::json* old_self) const;

  // Whether the rule mentions oldSelf (a transition rule, checked only on update).
  bool usesOldSelf() const { return uses_old_self_; }
  // Every chain of field names selected on `self`, e.g. {"spec","replicas"} for
  // self.spec.replicas; used to check the names against the schema when it is loaded.
  const std::vector<std::vector<std::string>>& selfFieldChains() const { return chains_; }

  struct Node;

 private:
  std::shared_ptr<const Node> root_;
  bool uses_old_self_ = false;
  std::vector<std::vector<std::string>> chains_;
};

}  // namespace troupe::openapi
