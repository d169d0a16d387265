#include "apiserver/auth/owner_reference_check.h"

namespace troupe::apiserver::auth {

namespace {

std::string text(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

Result<std::vector<Attributes>> ownerFinalizerRequests(const nlohmann::json& object,
                                                       const std::string& ns,
                                                       const ResourceRegistry& registry) {
  std::vector<Attributes> requests;
  if (!object.is_object()) return requests;
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return requests;
  auto refs = meta->find("ownerReferences");
  if (refs == meta->end() || !refs->is_array()) return requests;
  for (const auto& ref : *refs) {
    if (!ref.is_object()) continue;
    auto block = ref.find("blockOwnerDeletion");
    if (block == ref.end() || !block->is_boolean() || !block->get<bool>()) continue;
    const std::string api_version = text(ref, "apiVersion");
    const std::string kind = text(ref, "kind");
    std::optional<ResourceKind> owner;
    for (const auto& k : registry.all())
      if (k.groupVersion() == api_version && k.kind == kind) owner = k;
    if (!owner)
      return makeError(ErrorCode::Forbidden, "metadata.ownerReferences",
                       "cannot set blockOwnerDeletion in this case because cannot find "
                       "RESTMapping for APIVersion " +
                           api_version + " Kind " + kind);
    requests.push_back({"update", owner->group, owner->resource, "finalizers",
                        owner->namespaced ? ns : "", text(ref, "name")});
  }
  return requests;
}

}  // namespace troupe::apiserver::auth
