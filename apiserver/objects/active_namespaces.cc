#include "apiserver/objects/active_namespaces.h"

namespace troupe::apiserver {

std::uint64_t ActiveNamespaces::generation() const {
  std::lock_guard lock(mu_);
  return generation_;
}

bool ActiveNamespaces::contains(const std::string& name) const {
  std::lock_guard lock(mu_);
  return active_.count(name) > 0;
}

void ActiveNamespaces::remember(const std::string& name, std::uint64_t generation) {
  std::lock_guard lock(mu_);
  if (generation != generation_) return;
  active_.insert(name);
}

void ActiveNamespaces::forget(const std::string& name) {
  std::lock_guard lock(mu_);
  ++generation_;
  active_.erase(name);
}

}  // namespace troupe::apiserver
