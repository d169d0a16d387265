#include "apiserver/objects/object_service.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <random>
#include <set>
#include <string_view>

#include "api/names.h"
#include "api/quantity.h"
#include "apiserver/objects/crd_schema_validator.h"
#include "apiserver/objects/object_meta.h"
#include "apiserver/objects/object_shape.h"
#include "apiserver/objects/quantity_admission.h"
#include "common/base64.h"
#include "common/json_member.h"
#include "common/rfc3339.h"

namespace troupe::apiserver {

namespace {

using json = nlohmann::json;

constexpr int kMaxRetries = 8;

// Whether two objects are equal but for the members of `skip` (without copying either).
bool equalExcept(const json& a, const json& b, std::initializer_list<std::string_view> skip) {
  if (!a.is_object() || !b.is_object()) return a == b;
  auto skipped = [&](const std::string& key) {
    return std::find(skip.begin(), skip.end(), key) != skip.end();
  };
  std::size_t compared = 0;
  for (auto it = a.begin(); it != a.end(); ++it) {
    if (skipped(it.key())) continue;
    auto other = b.find(it.key());
    if (other == b.end() || *other != it.value()) return false;
    ++compared;
  }
  std::size_t in_b = 0;
  for (auto it = b.begin(); it != b.end(); ++it) in_b += skipped(it.key()) ? 0 : 1;
  return compared == in_b;
}

// Everything but metadata and status is what a change to bumps `generation`.
bool sameSpec(const json& a, const json& b) {
  return equalExcept(a, b, {"metadata", "status", "apiVersion", "kind"});
}

bool sameIgnoringVersion(const json& a, const json& b) {
  if (!a.is_object() || !b.is_object()) return a == b;
  if (!equalExcept(a, b, {"metadata"})) return false;
  auto a_meta = a.find("metadata");
  auto b_meta = b.find("metadata");
  if (a_meta == a.end() || b_meta == b.end()) return a_meta == a.end() && b_meta == b.end();
  return equalExcept(*a_meta, *b_meta, {"resourceVersion"});
}

bool hasFinalizers(const json& object) {
  auto meta = object.find("metadata");
  if (meta == object.end()) return false;
  auto f = meta->find("finalizers");
  return f != meta->end() && f->is_array() && !f->empty();
}

void addFinalizer(json& object, const std::string& finalizer) {
  auto& list = object["metadata"]["finalizers"];
  if (!list.is_array()) list = json::array();
  for (const auto& f : list)
    if (f == finalizer) return;
  list.push_back(finalizer);
}

// The pod's QoS class, as the real server computes it after defaulting: over the
// containers and init containers, cpu and memory only; BestEffort with no positive request
// or limit, Guaranteed when every container limits both and the summed requests equal the
// summed limits, Burstable otherwise.
std::string qosClass(const json& spec) {
  std::map<std::string, std::int64_t> requests, limits;  // milli-units, positive only
  bool guaranteed = true;
  for (const char* list : {"containers", "initContainers"}) {
    for (const auto& container : spec.value(list, json::array())) {
      if (!container.is_object()) continue;
      const json& resources = objectMember(container, "resources");
      auto add = [&](const char* kind, std::map<std::string, std::int64_t>& sums) {
        std::set<std::string> found;
        if (!resources.contains(kind) || !resources[kind].is_object()) return found;
        for (const auto& [name, q] : resources[kind].items()) {
          if (name != "cpu" && name != "memory") continue;
          auto quantity = api::Quantity::fromJson(q);
          if (!quantity || quantity->milliValue() <= 0) continue;
          sums[name] += quantity->milliValue();
          found.insert(name);
        }
        return found;
      };
      add("requests", requests);
      if (add("limits", limits).size() != 2) guaranteed = false;
    }
  }
  if (requests.empty() && limits.empty()) return "BestEffort";
  return guaranteed && requests == limits ? "Guaranteed" : "Burstable";
}

// A quantity as the real server writes it back: always a string. A JSON number is accepted
// on input (as the real server's Quantity decoder does) and written as its canonical form:
// 8 -> "8", 0.5 -> "500m".
json canonicalQuantity(const json& q) {
  if (!q.is_number()) return q;
  auto quantity = api::Quantity::fromJson(q);
  return quantity ? json(quantity->toString()) : q;  // invalid: left for validation to name
}

// As the real server's Pod defaulting: quantities become strings, and a resource with a
// limit but no request gets a request equal to its limit (so a container asking for
// `limits: {nvidia.com/gpu: 8}` is counted as requesting 8 GPUs by kubectl describe node,
// by schedulers, and by the QoS class computed after it).
void defaultContainerResources(json& container) {
  if (!container.contains("resources") || !container["resources"].is_object()) {
    container["resources"] = json::object();
    return;
  }
  json& resources = container["resources"];
  for (const char* list : {"limits", "requests"}) {
    if (!resources.contains(list) || !resources[list].is_object()) continue;
    for (auto& [name, q] : resources[list].items()) q = canonicalQuantity(q);
  }
  if (!resources.contains("limits") || !resources["limits"].is_object()) return;
  json& requests = resources["requests"];
  if (!requests.is_object()) requests = json::object();
  for (const auto& [name, q] : resources["limits"].items())
    if (!requests.contains(name)) requests[name] = q;
}

void defaultPod(json& pod, ObjectStore& store) {
  json& spec = pod["spec"];
  if (!spec.is_object()) spec = json::object();
  if (!spec.contains("schedulerName")) spec["schedulerName"] = "default-scheduler";
  if (!spec.contains("restartPolicy")) spec["restartPolicy"] = "Always";
  if (!spec.contains("dnsPolicy")) spec["dnsPolicy"] = "ClusterFirst";
  if (!spec.contains("terminationGracePeriodSeconds")) spec["terminationGracePeriodSeconds"] = 30;
  if (!spec.contains("securityContext")) spec["securityContext"] = json::object();
  if (!spec.contains("enableServiceLinks")) spec["enableServiceLinks"] = true;
  if (!spec.contains("preemptionPolicy")) spec["preemptionPolicy"] = "PreemptLowerPriority";
  if (!spec.contains("priority")) {
    std::int64_t priority = 0;
    if (spec.contains("priorityClassName") && spec["priorityClassName"].is_string()) {
      auto pc = store.get(
          {"priorityclasses.scheduling.k8s.io", "", spec["priorityClassName"].get<std::string>()});
      if (pc && pc->object.contains("value")) priority = pc->object["value"].get<std::int64_t>();
    }
    spec["priority"] = priority;
  }
  if (spec.contains("containers") && spec["containers"].is_array()) {
    for (auto& c : spec["containers"]) {
      if (!c.is_object()) continue;
      if (!c.contains("terminationMessagePath"))
        c["terminationMessagePath"] = "/dev/termination-log";
      if (!c.contains("terminationMessagePolicy")) c["terminationMessagePolicy"] = "File";
      if (!c.contains("imagePullPolicy")) {
        std::string image = c.value("image", "");
        bool latest = image.find(':') == std::string::npos ||
                      (image.size() >= 7 && image.compare(image.size() - 7, 7, ":latest") == 0);
        c["imagePullPolicy"] = latest ? "Always" : "IfNotPresent";
      }
      defaultContainerResources(c);
    }
  }
  if (spec.contains("initContainers") && spec["initContainers"].is_array())
    for (auto& c : spec["initContainers"])
      if (c.is_object()) defaultContainerResources(c);
  pod["status"] = {{"phase", "Pending"}, {"qosClass", qosClass(spec)}};
}

// As the real server does: stringData is write-only, merged into data (base64) on every
// write, and the type defaults to Opaque.
void defaultSecret(json& secret) {
  if (!secret.contains("type")) secret["type"] = "Opaque";
  if (secret.contains("stringData") && secret["stringData"].is_object()) {
    for (const auto& [key, value] : secret["stringData"].items())
      if (value.is_string()) secret["data"][key] = encodeBase64(value.get<std::string>());
    secret.erase("stringData");
  }
}

void defaultService(json& service) {
  json& spec = service["spec"];
  if (!spec.is_object()) spec = json::object();
  if (!spec.contains("type")) spec["type"] = "ClusterIP";
  if (!spec.contains("sessionAffinity")) spec["sessionAffinity"] = "None";
  if (!spec.contains("clusterIP")) {
    thread_local std::mt19937 rng{std::random_device{}()};
    std::uniform_int_distribution<int> octet(1, 254);
    std::string ip = "10.96." + std::to_string(octet(rng)) + "." + std::to_string(octet(rng));
    spec["clusterIP"] = ip;
    spec["clusterIPs"] = json::array({ip});
  }
  if (spec.contains("ports") && spec["ports"].is_array()) {
    for (auto& p : spec["ports"]) {
      if (!p.contains("protocol")) p["protocol"] = "TCP";
      if (!p.contains("targetPort") && p.contains("port")) p["targetPort"] = p["port"];
    }
  }
  service["status"] = {{"loadBalancer", json::object()}};
}

json crdStatus(const json& crd, const std::string& now) {
  json status = json::object();
  json names = crd["spec"].value("names", json::object());
  if (!names.contains("singular") && names.contains("kind")) {
    std::string singular = names["kind"];
    std::transform(singular.begin(), singular.end(), singular.begin(), ::tolower);
    names["singular"] = singular;
  }
  if (!names.contains("listKind") && names.contains("kind"))
    names["listKind"] = names["kind"].get<std::string>() + "List";
  status["acceptedNames"] = names;
  status["conditions"] = json::array({{{"type", "NamesAccepted"},
                                       {"status", "True"},
                                       {"lastTransitionTime", now},
                                       {"reason", "NoConflicts"},
                                       {"message", "no conflicts found"}},
                                      {{"type", "Established"},
                                       {"status", "True"},
                                       {"lastTransitionTime", now},
                                       {"reason", "InitialNamesAccepted"},
                                       {"message", "the initial names have been accepted"}}});
  json stored = json::array();
  for (const auto& v : crd["spec"].value("versions", json::array()))
    if (v.value("storage", false)) stored.push_back(v.value("name", ""));
  status["storedVersions"] = stored;
  return status;
}

}  // namespace

ObjectKey keyOf(const ResourceKind& kind, const std::string& ns, const std::string& name) {
  return ObjectKey{kind.storageName(), kind.namespaced ? ns : "", name};
}

ObjectService::ObjectService(ObjectStore& store, ResourceRegistry& registry,
                             const TimeSource& clock)
    : store_(store), registry_(registry), clock_(clock) {}

void ObjectService::notify(const ResourceKind& kind, const json& before, const json& after) {
  if (kind.storageName() == "namespaces") {
    namespaces_.forget(metaString(after.is_null() ? before : after, "name"));
  }
  if (kind.storageName() == "customresourcedefinitions.apiextensions.k8s.io") {
    if (after.is_null()) {
      registry_.removeCrd(metaString(before, "name"));
    } else {
      (void)registry_.applyCrd(after);  // validated before the write
    }
  }
  if (observer_) observer_->observe(kind, before, after);
}

ApiResult<StoredObject> ObjectService::get(const ResourceKind& kind, const std::string& ns,
                                           const std::string& name) {
  auto found = store_.get(keyOf(kind, ns, name));
  if (!found) return fromStoreError(found.error(), kind, name);
  return std::move(found.value());
}

std::optional<ApiError> ObjectService::validate(const ResourceKind& kind, json& object,
                                                const json* old, bool admit) {
  std::string name = metaString(object, "name");
  std::vector<Cause> causes;
  if (kind.storageName() == "customresourcedefinitions.apiextensions.k8s.io") {
    auto kinds = kindsFromCrd(object);
    if (!kinds) {
      causes.push_back({"FieldValueInvalid", kinds.error().message, kinds.error().field_path});
    }
    auto schema_causes = checkCrdSchemas(object);
    causes.insert(causes.end(), schema_causes.begin(), schema_causes.end());
  }
  if (kind.custom && validator_) {
    auto more = validator_(kind, object, old);
    causes.insert(causes.end(), more.begin(), more.end());
  }
  auto quantities = checkQuantities(kind, object);
  causes.insert(causes.end(), quantities.begin(), quantities.end());
  if (!causes.empty()) return invalid(kind, name, causes);
  if (admit && admission_) return admission_(kind, object, old);
  return std::nullopt;
}

std::optional<ApiError> ObjectService::admitCreate(const ResourceKind& kind, const std::string& ns,
                                                   json& object) {
  json& meta = object["metadata"];
  if (!meta.is_object()) meta = json::object();
  std::string name = meta.value("name", "");
  if (name.empty() && meta.contains("generateName") && meta["generateName"].is_string()) {
    name = meta["generateName"].get<std::string>() + randomSuffix();
    meta["name"] = name;
  }
  if (name.empty()) {
    return invalid(kind, "",
                   {{"FieldValueRequired", "Required value: name or generateName is required",
                     "metadata.name"}});
  }
  if (auto why = api::checkDnsSubdomain(name)) {
    return invalid(
        kind, name,
        {{"FieldValueInvalid", "Invalid value: \"" + name + "\": " + *why, "metadata.name"}});
  }
  if (kind.namespaced) {
    std::string body_ns = meta.value("namespace", "");
    if (!body_ns.empty() && body_ns != ns) {
      return badRequest(
          "the namespace of the provided object does not match the namespace sent on the request");
    }
    meta["namespace"] = ns;
    if (!namespaces_.contains(ns)) {
      const auto generation = namespaces_.generation();
      auto nsobj = store_.get({"namespaces", "", ns});
      if (!nsobj) {
        return statusError(404, "NotFound", "namespaces \"" + ns + "\" not found",
                           {{"name", ns}, {"kind", "namespaces"}});
      }
      if (nsobj->object["metadata"].contains("deletionTimestamp")) {
        return statusError(403, "Forbidden",
                           kind.resource + " \"" + name +
                               "\" is forbidden: unable to create new content in namespace " + ns +
                               " because it is being terminated",
                           {{"name", name}, {"kind", kind.resource}});
      }
      namespaces_.remember(ns, generation);
    }
  } else {
    meta.erase("namespace");
  }
  std::string now = formatRfc3339(clock_.now());
  meta["uid"] = newUid();
  meta["creationTimestamp"] = now;
  meta.erase("resourceVersion");
  meta.erase("deletionTimestamp");
  meta.erase("deletionGracePeriodSeconds");
  if (kind.bumps_generation) {
    meta["generation"] = 1;
  } else {
    meta.erase("generation");
  }
  object["apiVersion"] = kind.groupVersion();
  object["kind"] = kind.kind;
  if (kind.custom && kind.has_status) object.erase("status");

  const std::string storage = kind.storageName();
  if (storage == "pods") {
    defaultPod(object, store_);
  } else if (storage == "services") {
    defaultService(object);
  } else if (storage == "secrets") {
    defaultSecret(object);
  } else if (storage == "namespaces") {
    meta["labels"]["kubernetes.io/metadata.name"] = name;
    object["spec"] = {{"finalizers", json::array({"kubernetes"})}};
    object["status"] = {{"phase", "Active"}};
  } else if (storage == "customresourcedefinitions.apiextensions.k8s.io") {
    if (auto error = validate(kind, object, nullptr, false)) return error;
    object["status"] = crdStatus(object, now);
  }
  return validate(kind, object, nullptr, true);
}

ApiResult<StoredObject> ObjectService::create(const ResourceKind& kind, const std::string& ns,
                                              json object, bool dry_run) {
  if (!object.is_object()) return badRequest("the body of the request must be a JSON object");
  if (auto wrong = checkObjectShape(kind, object)) return *wrong;
  std::string api_version = object.value("apiVersion", "");
  std::string object_kind = object.value("kind", "");
  if (!api_version.empty() && api_version != kind.groupVersion()) {
    return badRequest("the API version in the data (" + api_version +
                      ") does not match the expected API version (" + kind.groupVersion() + ")");
  }
  if (!object_kind.empty() && object_kind != kind.kind) {
    return badRequest("the kind in the data (" + object_kind +
                      ") does not match the expected kind (" + kind.kind + ")");
  }
  if (auto error = admitCreate(kind, ns, object)) return *error;
  std::string name = metaString(object, "name");
  ObjectKey key = keyOf(kind, ns, name);
  if (dry_run) {
    if (store_.get(key)) return alreadyExists(kind, name);
    return StoredObject{key, 0, object};
  }
  auto created = store_.create(key, std::move(object));
  if (!created) return fromStoreError(created.error(), kind, name);
  notify(kind, nullptr, created->object);
  return std::move(created.value());
}

ApiResult<StoredObject> ObjectService::commitUpdate(const ResourceKind& kind,
                                                    const StoredObject& current, json next,
                                                    Subresource subresource, bool dry_run) {
  const json& old = current.object;
  const std::string& name = current.key.name;
  if (!next.is_object()) return badRequest("the body of the request must be a JSON object");
  if (auto wrong = checkObjectShape(kind, next)) return *wrong;
  if (subresource == Subresource::Status) {
    json merged = old;
    if (next.contains("status")) {
      merged["status"] = next["status"];
    } else {
      merged.erase("status");
    }
    next = std::move(merged);
  } else if ((subresource == Subresource::Main || subresource == Subresource::Scale) &&
             kind.has_status) {
    if (old.contains("status")) {
      next["status"] = old["status"];
    } else {
      next.erase("status");
    }
  }
  if (kind.storageName() == "secrets") defaultSecret(next);
  json& meta = next["metadata"];
  if (!meta.is_object()) meta = json::object();
  std::string body_name = meta.value("name", "");
  if (!body_name.empty() && body_name != name) {
    return badRequest("the name of the object (" + body_name +
                      ") does not match the name on the URL (" + name + ")");
  }
  const json& old_meta = old["metadata"];
  for (const char* field : {"name", "namespace", "uid", "creationTimestamp", "deletionTimestamp",
                            "deletionGracePeriodSeconds", "generation"}) {
    if (old_meta.contains(field)) {
      meta[field] = old_meta[field];
    } else {
      meta.erase(field);
    }
  }
  meta.erase("resourceVersion");
  next["apiVersion"] = kind.groupVersion();
  next["kind"] = kind.kind;
  if (kind.bumps_generation && !sameSpec(next, old)) {
    meta["generation"] = old_meta.value("generation", 0) + 1;
  }
  if (auto error = validate(kind, next, &old, subresource == Subresource::Main)) return *error;
  if (sameIgnoringVersion(next, old)) return current;
  if (dry_run) {
    next["metadata"]["resourceVersion"] = old_meta.value("resourceVersion", "");
    return StoredObject{current.key, current.revision, next};
  }
  if (meta.contains("deletionTimestamp") && !hasFinalizers(next)) {
    auto removed = store_.remove(current.key, current.revision);
    if (!removed) return fromStoreError(removed.error(), kind, name);
    notify(kind, old, nullptr);
    return std::move(removed.value());
  }
  auto updated = store_.update(current.key, std::move(next), current.revision);
  if (!updated) return fromStoreError(updated.error(), kind, name);
  notify(kind, old, updated->object);
  return std::move(updated.value());
}

ApiResult<StoredObject> ObjectService::update(const ResourceKind& kind, const std::string& ns,
                                              const std::string& name, json object,
                                              Subresource subresource, bool dry_run) {
  if (!object.is_object()) return badRequest("the body of the request must be a JSON object");
  auto current = store_.get(keyOf(kind, ns, name));
  if (!current) return fromStoreError(current.error(), kind, name);
  std::string body_rv = metaString(object, "resourceVersion");
  if (!body_rv.empty() && body_rv != std::to_string(current->revision)) {
    return staleConflict(kind, name);
  }
  return commitUpdate(kind, current.value(), std::move(object), subresource, dry_run);
}

ApiResult<StoredObject> ObjectService::mutate(const ResourceKind& kind, const std::string& ns,
                                              const std::string& name, const Change& change,
                                              Subresource subresource, bool dry_run,
                                              bool create_if_missing, bool* created) {
  for (int attempt = 0; attempt < kMaxRetries; ++attempt) {
    auto current = store_.get(keyOf(kind, ns, name));
    if (!current) {
      if (current.error().code != ErrorCode::NotFound || !create_if_missing)
        return fromStoreError(current.error(), kind, name);
      auto next = change(nullptr);
      if (!next) return next.error();
      auto made = create(kind, ns, std::move(next.value()), dry_run);
      if (!made && made.error().code == 409 && attempt + 1 < kMaxRetries) continue;
      if (made && created) *created = true;
      return made;
    }
    auto next = change(current->object);
    if (!next) return next.error();
    // As the real server: the patched object's resourceVersion is the one the write
    // expects, and a patch that sets one asks for optimistic concurrency.
    if (const auto expected = metaString(next.value(), "resourceVersion");
        !expected.empty() && expected != std::to_string(current->revision)) {
      return staleConflict(kind, name);
    }
    auto result =
        commitUpdate(kind, current.value(), std::move(next.value()), subresource, dry_run);
    if (!result && result.error().code == 409 &&
        result.error().status.value("reason", "") == "Conflict" && attempt + 1 < kMaxRetries) {
      continue;  // someone wrote in between: read again and reapply
    }
    return result;
  }
  return staleConflict(kind, name);
}

ApiResult<StoredObject> ObjectService::remove(const ResourceKind& kind, const std::string& ns,
                                              const std::string& name,
                                              const DeleteOptions& options) {
  for (int attempt = 0; attempt < kMaxRetries; ++attempt) {
    auto found = store_.get(keyOf(kind, ns, name));
    if (!found) return fromStoreError(found.error(), kind, name);
    StoredObject current = std::move(found.value());
    const json& old = current.object;
    if (!options.precondition_uid.empty() && options.precondition_uid != metaString(old, "uid")) {
      return conflict(kind, name,
                      "Precondition failed: UID in precondition: " + options.precondition_uid +
                          ", UID in object meta: " + metaString(old, "uid"));
    }
    if (!options.precondition_resource_version.empty() &&
        options.precondition_resource_version != std::to_string(current.revision)) {
      return conflict(kind, name,
                      "Precondition failed: ResourceVersion in precondition: " +
                          options.precondition_resource_version +
                          ", ResourceVersion in object meta: " + std::to_string(current.revision));
    }
    json next = old;
    bool graceful = false;
    Time now = clock_.now();
    if (kind.storageName() == "pods") {
      std::int64_t grace = options.grace_period_seconds.value_or(
          old["spec"].value("terminationGracePeriodSeconds", std::int64_t{30}));
      std::string phase = objectMember(old, "status").value("phase", "");
      bool bound = !old["spec"].value("nodeName", "").empty();
      bool terminal = phase == "Succeeded" || phase == "Failed";
      if (bound && !terminal && grace > 0) {
        graceful = true;
        if (!old["metadata"].contains("deletionTimestamp")) {
          next["metadata"]["deletionTimestamp"] = formatRfc3339(now + std::chrono::seconds(grace));
          next["metadata"]["deletionGracePeriodSeconds"] = grace;
        }
      }
    }
    const std::string& policy = options.propagation_policy;
    if (policy == "Foreground") addFinalizer(next, "foregroundDeletion");
    if (policy == "Orphan") addFinalizer(next, "orphan");
    bool keep = graceful || hasFinalizers(next);
    if (keep) {
      if (!next["metadata"].contains("deletionTimestamp")) {
        next["metadata"]["deletionTimestamp"] = formatRfc3339(now);
        next["metadata"]["deletionGracePeriodSeconds"] = 0;
      }
      if (next == old) return current;  // already being deleted
      if (options.dry_run) return StoredObject{current.key, current.revision, next};
      next["metadata"].erase("resourceVersion");
      auto updated = store_.update(current.key, std::move(next), current.revision);
      if (!updated) {
        if (updated.error().code == ErrorCode::Conflict) continue;
        return fromStoreError(updated.error(), kind, name);
      }
      notify(kind, old, updated->object);
      return std::move(updated.value());
    }
    if (options.dry_run) return current;
    auto removed = store_.remove(current.key, current.revision);
    if (!removed) {
      if (removed.error().code == ErrorCode::Conflict) continue;
      return fromStoreError(removed.error(), kind, name);
    }
    notify(kind, old, nullptr);
    return std::move(removed.value());
  }
  return staleConflict(kind, name);
}

}  // namespace troupe::apiserver
