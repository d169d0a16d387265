#pragma once

#include <cstdint>
#include <mutex>
#include <set>
#include <string>

// The namespaces known to exist and not to be terminating, so that a create need not read
// its namespace from the store every time. Every write of a namespace goes through
// ObjectService, which forgets that name once the write is committed; a name read from
// the store while such a write was in flight is not remembered. A create therefore sees a
// namespace's deletion as soon as the write that marks it is answered.
namespace troupe::apiserver {

class ActiveNamespaces {
 public:
  // Take before reading a namespace from the store; hand it to remember().
  std::uint64_t generation() const;
  bool contains(const std::string& name) const;
  // Remembers `name` as active, unless a namespace was written since `generation`.
  void remember(const std::string& name, std::uint64_t generation);
  // After a committed write of namespace `name` (create, update or removal).
  void forget(const std::string& name);

 private:
  mutable std::mutex mu_;
  std::uint64_t generation_ = 0;
  std::set<std::string, std::less<>> active_;
};

}  // namespace troupe::apiserver
