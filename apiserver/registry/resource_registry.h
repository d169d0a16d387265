#pragma once

#include <map>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "apiserver/registry/resource_kind.h"
#include "common/result.h"

// The kinds the server serves: the built-in ones plus those that CRDs define. Readers
// take a snapshot; CRD changes replace the kinds of that CRD.
namespace troupe::apiserver {

class ResourceRegistry {
 public:
  ResourceRegistry();

  std::optional<ResourceKind> find(const std::string& group, const std::string& version,
                                   const std::string& resource) const;
  // By "<plural>" or "<plural>.<group>" (the storage name).
  std::optional<ResourceKind> findByStorageName(const std::string& name) const;
  std::vector<ResourceKind> all() const;  // ordered by (group, version, resource)
  // A counter bumped on every change, for caches of discovery documents.
  std::uint64_t generation() const;

  // Replaces the kinds served for one CRD (keyed by its metadata.name). An Invalid error
  // names the CRD field at fault.
  Status applyCrd(const nlohmann::json& crd);
  void removeCrd(const std::string& crd_name);

 private:
  mutable std::shared_mutex mu_;
  std::vector<ResourceKind> builtin_;
  std::map<std::string, std::vector<ResourceKind>> custom_;  // by CRD name
  std::uint64_t generation_ = 1;
};

// Kinds built into the server (namespaces, nodes, pods, ...).
std::vector<ResourceKind> builtinKinds();
// The kinds a CRD object defines, one per served version.
Result<std::vector<ResourceKind>> kindsFromCrd(const nlohmann::json& crd);

}  // namespace troupe::apiserver
