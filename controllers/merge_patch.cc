#include "controllers/merge_patch.h"

namespace troupe::controllers {

nlohmann::json mergePatch(const nlohmann::json& from, const nlohmann::json& to) {
  if (!from.is_object() || !to.is_object()) return to;
  nlohmann::json patch = nlohmann::json::object();
  for (const auto& [k, v] : from.items())
    if (!to.contains(k)) patch[k] = nullptr;
  for (const auto& [k, v] : to.items()) {
    auto it = from.find(k);
    if (it == from.end()) {
      patch[k] = v;
    } else if (*it != v) {
      patch[k] = mergePatch(*it, v);
    }
  }
  return patch;
}

}  // namespace troupe::controllers
