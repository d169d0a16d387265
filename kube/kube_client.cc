#include "kube/kube_client.h"

namespace troupe::kube {

const char* watchEventTypeName(WatchEventType type) {
  switch (type) {
    case WatchEventType::Added: return "ADDED";
    case WatchEventType::Modified: return "MODIFIED";
    case WatchEventType::Deleted: return "DELETED";
    case WatchEventType::Bookmark: return "BOOKMARK";
    case WatchEventType::Error: return "ERROR";
  }
  return "ERROR";
}

ApiResult<nlohmann::json> listAll(KubeClient& client, const ResourceType& type,
                                  const std::string& ns, ListOptions options) {
  if (options.limit <= 0) options.limit = 500;
  options.continue_token.clear();
  nlohmann::json all;
  for (;;) {
    auto page = client.list(type, ns, options);
    if (!page) return page.error();
    if (all.is_null()) {
      all = *page;
      all["items"] = nlohmann::json::array();
    }
    if (auto items = page->find("items"); items != page->end() && items->is_array()) {
      for (auto& item : *items) all["items"].push_back(std::move(item));
    }
    std::string next;
    if (auto md = page->find("metadata"); md != page->end() && md->is_object()) {
      if (auto c = md->find("continue"); c != md->end() && c->is_string()) next = *c;
    }
    if (next.empty()) break;
    options.continue_token = std::move(next);
    // Later pages are read at the first page's version; the token carries it.
    options.resource_version.clear();
  }
  if (!all["metadata"].is_object()) all["metadata"] = nlohmann::json::object();
  all["metadata"].erase("continue");
  all["metadata"].erase("remainingItemCount");
  return all;
}

ApiResult<nlohmann::json> updateStatus(KubeClient& client, const ObjectRef& ref,
                                       const nlohmann::json& object, const WriteOptions& options) {
  ObjectRef status = ref;
  status.subresource = "status";
  return client.update(status, object, options);
}

ApiResult<nlohmann::json> apply(KubeClient& client, const ObjectRef& ref,
                                const nlohmann::json& object, const std::string& field_manager,
                                bool force) {
  PatchOptions options;
  options.type = PatchType::Apply;
  options.field_manager = field_manager;
  options.force = force;
  return client.patch(ref, object, options);
}

ApiResult<nlohmann::json> bindPod(KubeClient& client, const std::string& ns, const std::string& pod,
                                  const std::string& node_name, const std::string& pod_uid) {
  nlohmann::json binding = {
      {"apiVersion", "v1"},
      {"kind", "Binding"},
      {"metadata", {{"name", pod}, {"namespace", ns}}},
      {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node_name}}},
  };
  if (!pod_uid.empty()) binding["metadata"]["uid"] = pod_uid;
  return client.createSubresource(ObjectRef{resources::kPods, ns, pod, "binding"}, binding);
}

ApiResult<nlohmann::json> evictPod(KubeClient& client, const std::string& ns,
                                   const std::string& pod,
                                   std::optional<std::int64_t> grace_period_seconds) {
  nlohmann::json eviction = {
      {"apiVersion", "policy/v1"},
      {"kind", "Eviction"},
      {"metadata", {{"name", pod}, {"namespace", ns}}},
  };
  if (grace_period_seconds) {
    eviction["deleteOptions"] = {{"gracePeriodSeconds", *grace_period_seconds}};
  }
  return client.createSubresource(ObjectRef{resources::kPods, ns, pod, "eviction"}, eviction);
}

}  // namespace troupe::kube
