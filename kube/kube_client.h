#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "kube/api_error.h"
#include "kube/resource_type.h"

// The Kubernetes API as the operator sees it. Controllers, the scheduler loop, informers
// and leader election depend on this interface only, so the same code runs against the
// real kube-apiserver (cluster mode) and Troupe's embedded server (standalone mode).
//
// Objects are nlohmann::json exactly as the server sends them. Every failure is an
// ApiError built from the server's Status (code, reason, message, causes), so callers can
// tell 409 AlreadyExists from 409 Conflict and see 410 Gone. Implementations are
// thread-safe; every call blocks the calling thread until the answer (or the deadline).
namespace troupe::kube {

struct ListOptions {
  std::string label_selector;  // "team=nlp,tier!=web"
  std::string field_selector;  // "spec.nodeName=gpu-node-1"
  std::int64_t limit = 0;      // 0: no limit (one page)
  std::string continue_token;
  // "" reads the latest state (a quorum read); "0" allows any cached state.
  std::string resource_version;
};

// Options of the writes that accept them (create, update, patch).
struct WriteOptions {
  std::string field_manager;  // "troupe-operator"
  bool dry_run = false;       // dryRun=All: validate and answer, persist nothing
};

enum class PatchType {
  Merge,           // application/merge-patch+json (RFC 7386)
  Json,            // application/json-patch+json (RFC 6902)
  StrategicMerge,  // application/strategic-merge-patch+json (built-in types only)
  Apply,           // application/apply-patch+yaml: server-side apply (needs field_manager)
};

struct PatchOptions {
  PatchType type = PatchType::Merge;
  std::string field_manager;
  bool force = false;  // Apply only: take ownership of conflicting fields
  bool dry_run = false;
};

struct DeleteOptions {
  std::optional<std::string> propagation_policy;  // "Background", "Foreground", "Orphan"
  std::optional<std::int64_t> grace_period_seconds;
  // Preconditions: the delete fails with 409 Conflict unless the object still matches.
  std::optional<std::string> precondition_uid;
  std::optional<std::string> precondition_resource_version;
  bool dry_run = false;
};

struct WatchOptions {
  std::string label_selector;
  std::string field_selector;
  // Events after this version; "" starts at the current state and "0" starts with
  // synthetic ADDED events for every existing object.
  std::string resource_version;
  std::int64_t timeout_seconds = 300;  // the server ends the stream after this long
  bool allow_bookmarks = true;
};

enum class WatchEventType { Added, Modified, Deleted, Bookmark, Error };

struct WatchEvent {
  WatchEventType type = WatchEventType::Added;
  nlohmann::json object;  // for Error: the Status
};

const char* watchEventTypeName(WatchEventType type);

class KubeClient {
 public:
  virtual ~KubeClient() = default;

  // GET one object, or one of its subresources (ref.subresource "status", "scale").
  virtual ApiResult<nlohmann::json> get(const ObjectRef& ref) = 0;

  // One page of a collection (`ns` empty: every namespace). The answer is the List object:
  // items, metadata.resourceVersion and metadata.continue.
  virtual ApiResult<nlohmann::json> list(const ResourceType& type, const std::string& ns,
                                         const ListOptions& options) = 0;

  // POST `object` to the collection of `type` in `ns`; the created object comes back.
  virtual ApiResult<nlohmann::json> create(const ResourceType& type, const std::string& ns,
                                           const nlohmann::json& object,
                                           const WriteOptions& options) = 0;

  // POST to a subresource of an existing object (pods/binding, pods/eviction); the answer
  // is whatever the server returns (a Status for binding).
  virtual ApiResult<nlohmann::json> createSubresource(const ObjectRef& ref,
                                                      const nlohmann::json& body) = 0;

  // PUT `object` (which carries metadata.resourceVersion: a stale one is 409 Conflict) to
  // the object, or to ref.subresource ("status", "scale").
  virtual ApiResult<nlohmann::json> update(const ObjectRef& ref, const nlohmann::json& object,
                                           const WriteOptions& options) = 0;

  // PATCH the object or ref.subresource; `patch` is JSON in the shape `options.type` asks.
  virtual ApiResult<nlohmann::json> patch(const ObjectRef& ref, const nlohmann::json& patch,
                                          const PatchOptions& options) = 0;

  // DELETE; the answer is the object's last state (or, with finalizers, its state with
  // deletionTimestamp set) or a Status.
  virtual ApiResult<nlohmann::json> remove(const ObjectRef& ref, const DeleteOptions& options) = 0;

  // Opens one watch request and calls `on_event` for every event, in order, on the calling
  // thread, until the server ends the stream (success), `stop` is requested (Cancelled),
  // or the connection fails. An ERROR event is delivered like any other: the caller
  // decides (a 410 means relist). WatchStream adds resumption on top of this. The event is
  // the handler's to keep: a cache moves its object in rather than copying it.
  virtual ApiResult<void> watch(const ResourceType& type, const std::string& ns,
                                const WatchOptions& options,
                                const std::function<void(WatchEvent&&)>& on_event,
                                std::stop_token stop) = 0;
};

// Conveniences built on the interface, the same for every implementation.

// Every page of a list, following metadata.continue. `options.limit` is the page size
// (0: 500). Returns a List with all items and the resourceVersion of the first page.
ApiResult<nlohmann::json> listAll(KubeClient& client, const ResourceType& type,
                                  const std::string& ns, ListOptions options = {});

// PUT to the status subresource.
ApiResult<nlohmann::json> updateStatus(KubeClient& client, const ObjectRef& ref,
                                       const nlohmann::json& object,
                                       const WriteOptions& options = {});

// Server-side apply of `object` (apiVersion, kind, metadata.name set) as `field_manager`.
ApiResult<nlohmann::json> apply(KubeClient& client, const ObjectRef& ref,
                                const nlohmann::json& object, const std::string& field_manager,
                                bool force = false);

// POST pods/<pod>/binding: assigns the pod to `node_name`.
ApiResult<nlohmann::json> bindPod(KubeClient& client, const std::string& ns, const std::string& pod,
                                  const std::string& node_name, const std::string& pod_uid = "");

// POST pods/<pod>/eviction (policy/v1): evicts while honouring PodDisruptionBudgets.
ApiResult<nlohmann::json> evictPod(KubeClient& client, const std::string& ns,
                                   const std::string& pod,
                                   std::optional<std::int64_t> grace_period_seconds = std::nullopt);

}  // namespace troupe::kube
