#include "apiserver/handlers/discovery.h"

#include <map>

#include "apiserver/handlers/content.h"
#include "apiserver/handlers/json_response.h"

namespace troupe::apiserver {

namespace {

using json = nlohmann::json;

json statusVerbs() { return json::array({"get", "patch", "update"}); }

json aggregatedResource(const ResourceKind& k) {
  json r = {{"resource", k.resource},
            {"responseKind", {{"group", ""}, {"version", ""}, {"kind", k.kind}}},
            {"scope", k.namespaced ? "Namespaced" : "Cluster"},
            {"singularResource", k.singular},
            {"verbs", k.verbs}};
  if (!k.short_names.empty()) r["shortNames"] = k.short_names;
  if (!k.categories.empty()) r["categories"] = k.categories;
  json subs = json::array();
  if (k.has_binding)
    subs.push_back({{"subresource", "binding"},
                    {"responseKind", {{"group", ""}, {"version", ""}, {"kind", "Binding"}}},
                    {"verbs", {"create"}}});
  if (k.has_eviction)
    subs.push_back(
        {{"subresource", "eviction"},
         {"responseKind", {{"group", "policy"}, {"version", "v1"}, {"kind", "Eviction"}}},
         {"verbs", {"create"}}});
  if (k.has_log)
    subs.push_back({{"subresource", "log"},
                    {"responseKind", {{"group", ""}, {"version", ""}, {"kind", k.kind}}},
                    {"verbs", {"get"}}});
  if (k.has_scale)
    subs.push_back(
        {{"subresource", "scale"},
         {"responseKind", {{"group", "autoscaling"}, {"version", "v1"}, {"kind", "Scale"}}},
         {"verbs", statusVerbs()}});
  if (k.has_status)
    subs.push_back({{"subresource", "status"},
                    {"responseKind", {{"group", ""}, {"version", ""}, {"kind", k.kind}}},
                    {"verbs", statusVerbs()}});
  if (!subs.empty()) r["subresources"] = subs;
  return r;
}

json resourceListEntries(const ResourceKind& k) {
  json out = json::array();
  json main = {{"name", k.resource},
               {"singularName", k.singular},
               {"namespaced", k.namespaced},
               {"kind", k.kind},
               {"verbs", k.verbs}};
  if (!k.short_names.empty()) main["shortNames"] = k.short_names;
  if (!k.categories.empty()) main["categories"] = k.categories;
  out.push_back(main);
  auto sub = [&](const std::string& name, json verbs, const std::string& kind,
                 const std::string& group = "", const std::string& version = "") {
    json e = {
        {"name", k.resource + "/" + name}, {"singularName", ""}, {"namespaced", k.namespaced}};
    if (!group.empty()) {
      e["group"] = group;
      e["version"] = version;
    }
    e["kind"] = kind;
    e["verbs"] = verbs;
    out.push_back(e);
  };
  if (k.has_binding) sub("binding", {"create"}, "Binding");
  if (k.has_eviction) sub("eviction", {"create"}, "Eviction", "policy", "v1");
  if (k.has_log) sub("log", {"get"}, k.kind);
  if (k.has_status) sub("status", statusVerbs(), k.kind);
  if (k.has_scale) sub("scale", statusVerbs(), "Scale", "autoscaling", "v1");
  return out;
}

// group -> version -> kinds, groups in registry order.
std::map<std::string, std::map<std::string, std::vector<ResourceKind>>> byGroup(
    const ResourceRegistry& registry) {
  std::map<std::string, std::map<std::string, std::vector<ResourceKind>>> out;
  for (const auto& k : registry.all()) out[k.group][k.version].push_back(k);
  return out;
}

// Versions newest first in Kubernetes' order: v1 > v1beta2 > v1beta1 > v1alpha1.
std::vector<std::string> orderedVersions(
    const std::map<std::string, std::vector<ResourceKind>>& versions) {
  std::vector<std::string> out;
  for (const auto& [v, kinds] : versions) out.push_back(v);
  auto rank = [](const std::string& v) {
    int stability = v.find("alpha") != std::string::npos  ? 0
                    : v.find("beta") != std::string::npos ? 1
                                                          : 2;
    int major = std::atoi(v.c_str() + 1);
    auto pos = v.find_first_of("ab");
    int minor =
        pos == std::string::npos ? 0 : std::atoi(v.c_str() + v.find_first_of("0123456789", pos));
    return std::make_tuple(stability, major, minor);
  };
  std::sort(out.begin(), out.end(),
            [&](const auto& a, const auto& b) { return rank(a) > rank(b); });
  return out;
}

json aggregatedGroup(const std::string& group,
                     const std::map<std::string, std::vector<ResourceKind>>& versions) {
  json entry = {{"metadata", {{"creationTimestamp", nullptr}}}, {"versions", json::array()}};
  if (!group.empty()) entry["metadata"]["name"] = group;
  for (const auto& v : orderedVersions(versions)) {
    json resources = json::array();
    for (const auto& k : versions.at(v)) resources.push_back(aggregatedResource(k));
    entry["versions"].push_back(
        {{"version", v}, {"resources", resources}, {"freshness", "Current"}});
  }
  return entry;
}

http::Response aggregated(json items, Representation representation) {
  bool v2 = representation == Representation::AggregatedDiscoveryV2;
  json list = {{"kind", "APIGroupDiscoveryList"},
               {"apiVersion", v2 ? "apidiscovery.k8s.io/v2" : "apidiscovery.k8s.io/v2beta1"},
               {"metadata", json::object()},
               {"items", std::move(items)}};
  http::Response response = jsonResponse(200, list);
  response.content_type = std::string("application/json;g=apidiscovery.k8s.io;v=") +
                          (v2 ? "v2" : "v2beta1") + ";as=APIGroupDiscoveryList";
  response.headers.emplace_back("Vary", "Accept");
  return response;
}

json groupInfo(const std::string& group,
               const std::map<std::string, std::vector<ResourceKind>>& versions) {
  json list = json::array();
  for (const auto& v : orderedVersions(versions))
    list.push_back({{"groupVersion", group + "/" + v}, {"version", v}});
  return {{"name", group}, {"versions", list}, {"preferredVersion", list.front()}};
}

}  // namespace

http::Response handleVersion(const VersionInfo& version) {
  return jsonResponse(200, {{"major", version.major},
                            {"minor", version.minor},
                            {"gitVersion", version.git_version},
                            {"gitCommit", "troupe"},
                            {"gitTreeState", "clean"},
                            {"buildDate", "2026-01-01T00:00:00Z"},
                            {"goVersion", "go1.21.13"},
                            {"compiler", "gc"},
                            {"platform", "linux/amd64"}});
}

http::Response handleCoreDiscovery(const ResourceRegistry& registry, const http::Request& request,
                                   const std::string& server_address) {
  auto representation = negotiate(request.header("accept"), true);
  if (representation == Representation::AggregatedDiscoveryV2 ||
      representation == Representation::AggregatedDiscoveryV2Beta1) {
    auto groups = byGroup(registry);
    return aggregated(json::array({aggregatedGroup("", groups[""])}), representation);
  }
  return jsonResponse(200, {{"kind", "APIVersions"},
                            {"versions", {"v1"}},
                            {"serverAddressByClientCIDRs",
                             {{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", server_address}}}}});
}

http::Response handleGroupsDiscovery(const ResourceRegistry& registry,
                                     const http::Request& request) {
  auto representation = negotiate(request.header("accept"), true);
  auto groups = byGroup(registry);
  if (representation == Representation::AggregatedDiscoveryV2 ||
      representation == Representation::AggregatedDiscoveryV2Beta1) {
    json items = json::array();
    for (const auto& [group, versions] : groups)
      if (!group.empty()) items.push_back(aggregatedGroup(group, versions));
    return aggregated(items, representation);
  }
  json list = json::array();
  for (const auto& [group, versions] : groups)
    if (!group.empty()) list.push_back(groupInfo(group, versions));
  return jsonResponse(200, {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", list}});
}

http::Response handleGroupDiscovery(const ResourceRegistry& registry, const std::string& group) {
  auto groups = byGroup(registry);
  auto it = groups.find(group);
  if (group.empty() || it == groups.end()) {
    http::Response response;
    response.status = 404;
    response.content_type = "text/plain; charset=utf-8";
    response.body = "404 page not found\n";
    return response;
  }
  json info = groupInfo(group, it->second);
  info["kind"] = "APIGroup";
  info["apiVersion"] = "v1";
  return jsonResponse(200, info);
}

http::Response handleResourceList(const ResourceRegistry& registry, const std::string& group,
                                  const std::string& version) {
  json resources = json::array();
  for (const auto& k : registry.all()) {
    if (k.group != group || k.version != version) continue;
    for (auto& e : resourceListEntries(k)) resources.push_back(e);
  }
  if (resources.empty()) {
    http::Response response;
    response.status = 404;
    response.content_type = "text/plain; charset=utf-8";
    response.body = "404 page not found\n";
    return response;
  }
  return jsonResponse(200, {{"kind", "APIResourceList"},
                            {"apiVersion", "v1"},
                            {"groupVersion", group.empty() ? version : group + "/" + version},
                            {"resources", resources}});
}

}  // namespace troupe::apiserver
