#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>

#include "apiserver/objects/active_namespaces.h"
#include "apiserver/objects/api_status.h"
#include "apiserver/registry/resource_registry.h"
#include "apiserver/storage/object_store.h"
#include "common/clock.h"

// The Kubernetes semantics of writes on top of the ObjectStore: uid, creationTimestamp,
// generation, optimistic concurrency, status subresource rules, graceful deletion and
// finalizers. Every writer (REST handlers, the garbage collector) goes through here.
namespace troupe::apiserver {

// Main: status is kept as stored (kinds with a status subresource); Status: only status
// changes; Scale: as Main, through the scale subresource; All: both (internal writers such
// as pods/binding). Validating admission sees Main writes only, as kube-apiserver's
// webhooks registered for a resource see neither its status nor its scale.
enum class Subresource { Main, Status, Scale, All };

struct DeleteOptions {
  std::optional<std::int64_t> grace_period_seconds;
  std::string propagation_policy;  // "", "Background", "Foreground", "Orphan"
  std::string precondition_uid;
  std::string precondition_resource_version;
  bool dry_run = false;
};

// Sees every committed change; the garbage collector keeps its owner index with it.
// Called after the write, from the writing thread; must not block.
class WriteObserver {
 public:
  virtual ~WriteObserver() = default;
  // `before` is null for a create, `after` null for a removal.
  virtual void observe(const ResourceKind& kind, const nlohmann::json& before,
                       const nlohmann::json& after) = 0;
};

// Checks (and defaults, in place) a custom resource against its CRD schema; an empty
// list means valid. `old` is the stored object on an update (transition rules compare
// with it), null on a create.
using SchemaValidator = std::function<std::vector<Cause>(
    const ResourceKind& kind, nlohmann::json& object, const nlohmann::json* old)>;

// Validating admission: runs after validation passed, as kube-apiserver calls validating
// webhooks after its own checks; `old` is null on a create. An error refuses the write.
using AdmissionCheck = std::function<std::optional<ApiError>(
    const ResourceKind& kind, const nlohmann::json& object, const nlohmann::json* old)>;

class ObjectService {
 public:
  ObjectService(ObjectStore& store, ResourceRegistry& registry, const TimeSource& clock);

  void setObserver(WriteObserver* observer) { observer_ = observer; }
  void setSchemaValidator(SchemaValidator validator) { validator_ = std::move(validator); }
  void setAdmissionCheck(AdmissionCheck check) { admission_ = std::move(check); }

  ApiResult<StoredObject> get(const ResourceKind& kind, const std::string& ns,
                              const std::string& name);
  ApiResult<StoredObject> create(const ResourceKind& kind, const std::string& ns,
                                 nlohmann::json object, bool dry_run);
  // PUT: replaces the object (or its status). A body resourceVersion must match.
  ApiResult<StoredObject> update(const ResourceKind& kind, const std::string& ns,
                                 const std::string& name, nlohmann::json object,
                                 Subresource subresource, bool dry_run);
  // Read-modify-write with retries on a concurrent write: `change` gets the current
  // object and returns the new one (a patch). `create_if_missing` lets server-side
  // apply create: `change` then receives null. A resourceVersion the change leaves in
  // the object other than the current one (a patch that names the version it was made
  // from) is a precondition: 409 Conflict once it is stale, with no retry.
  using Change = std::function<ApiResult<nlohmann::json>(const nlohmann::json& current)>;
  ApiResult<StoredObject> mutate(const ResourceKind& kind, const std::string& ns,
                                 const std::string& name, const Change& change,
                                 Subresource subresource, bool dry_run,
                                 bool create_if_missing = false, bool* created = nullptr);
  // Deletes, gracefully where Kubernetes does: finalizers or a bound pod's grace period
  // leave the object in place with a deletionTimestamp. Returns the last state.
  ApiResult<StoredObject> remove(const ResourceKind& kind, const std::string& ns,
                                 const std::string& name, const DeleteOptions& options);

  ObjectStore& store() { return store_; }
  ResourceRegistry& registry() { return registry_; }
  const TimeSource& clock() const { return clock_; }

 private:
  ApiResult<StoredObject> commitUpdate(const ResourceKind& kind, const StoredObject& current,
                                       nlohmann::json next, Subresource subresource, bool dry_run);
  std::optional<ApiError> admitCreate(const ResourceKind& kind, const std::string& ns,
                                      nlohmann::json& object);
  // Validation, then (for writes of the object itself) admission.
  std::optional<ApiError> validate(const ResourceKind& kind, nlohmann::json& object,
                                   const nlohmann::json* old, bool admit);
  void notify(const ResourceKind& kind, const nlohmann::json& before, const nlohmann::json& after);

  ObjectStore& store_;
  ResourceRegistry& registry_;
  const TimeSource& clock_;
  WriteObserver* observer_ = nullptr;
  SchemaValidator validator_;
  AdmissionCheck admission_;
  ActiveNamespaces namespaces_;
};

ObjectKey keyOf(const ResourceKind& kind, const std::string& ns, const std::string& name);

}  // namespace troupe::apiserver
