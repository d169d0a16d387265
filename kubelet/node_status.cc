#include "kubelet/node_status.h"

#include "common/json_member.h"
#include "common/rfc3339.h"
#include "kubelet/pod_status.h"

namespace troupe::kubelet {

namespace {

using json = nlohmann::json;

constexpr const char* kKubeletVersion = "v1.28.0-troupe-sim";

const json* readyCondition(const json& node) {
  auto status = node.find("status");
  if (status == node.end() || !status->is_object()) return nullptr;
  auto conditions = status->find("conditions");
  if (conditions == status->end() || !conditions->is_array()) return nullptr;
  for (const auto& c : *conditions)
    if (c.is_object() && c.value("type", "") == "Ready") return &c;
  return nullptr;
}

bool flagged(const json& node, const char* where) {
  const json& map = objectMember(objectMember(node, "metadata"), where);
  auto it = map.find(std::string(kSimNodeFailureAnnotation));
  return it != map.end() && it->is_string() && it->get<std::string>() == "true";
}

struct Wanted {
  std::string type, status, reason, message;
};

}  // namespace

bool failureRequested(const json& node) {
  return flagged(node, "annotations") || flagged(node, "labels");
}

NodeHealth nodeHealth(const json& node) {
  const json* ready = readyCondition(node);
  // No Ready condition yet: the kubelet has not posted its first status.
  if (!ready) return failureRequested(node) ? NodeHealth::NotReady : NodeHealth::Unknown;
  return ready->value("status", "") == "True" ? NodeHealth::Ready : NodeHealth::NotReady;
}

std::optional<json> nodeStatusUpdate(const json& node, Time now, bool heartbeat_due) {
  const json* ready = readyCondition(node);
  std::string ready_status = ready ? ready->value("status", "") : "";
  std::string ready_reason = ready ? ready->value("reason", "") : "";
  bool failed = failureRequested(node);
  if (failed && ready_status == "False" && ready_reason == kNodeFailureReason) {
    return std::nullopt;  // already reported; a failed kubelet posts nothing more
  }

  Wanted want_ready{"Ready", "True", "KubeletReady", "kubelet is posting ready status"};
  if (failed) {
    want_ready = {"Ready", "False", std::string(kNodeFailureReason),
                  "simulated node failure: the node carries troupe.dev/sim-node-failure=true"};
  } else if (ready && ready_status != "True" && ready_reason != kNodeFailureReason) {
    // Someone else marked it not ready: keep their condition, refresh the heartbeat.
    want_ready = {"Ready", ready_status, ready_reason, ready->value("message", "")};
  }
  const Wanted wanted[] = {
      {"MemoryPressure", "False", "KubeletHasSufficientMemory",
       "kubelet has sufficient memory available"},
      {"DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"},
      {"PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"},
      want_ready,
  };

  std::string stamp = formatRfc3339(now);
  json status = node.value("status", json::object());
  if (!status.is_object()) status = json::object();
  json old_conditions = status.value("conditions", json::array());
  bool changed = false;
  json conditions = json::array();
  for (const auto& w : wanted) {
    json condition = {{"type", w.type},
                      {"status", w.status},
                      {"lastHeartbeatTime", stamp},
                      {"lastTransitionTime", stamp},
                      {"reason", w.reason},
                      {"message", w.message}};
    bool found = false;
    for (const auto& old : old_conditions) {
      if (!old.is_object() || old.value("type", "") != w.type) continue;
      found = true;
      if (old.value("status", "") == w.status && old.contains("lastTransitionTime"))
        condition["lastTransitionTime"] = old["lastTransitionTime"];
      if (old.value("status", "") != w.status || old.value("reason", "") != w.reason ||
          old.value("message", "") != w.message)
        changed = true;
      if (!heartbeat_due && old.contains("lastHeartbeatTime"))
        condition["lastHeartbeatTime"] = old["lastHeartbeatTime"];
    }
    if (!found) changed = true;
    conditions.push_back(condition);
  }
  // Conditions the kubelet does not own (NetworkUnavailable, a node problem detector's).
  for (const auto& old : old_conditions) {
    bool ours = false;
    for (const auto& w : wanted) ours = ours || old.value("type", "") == w.type;
    if (!ours) conditions.push_back(old);
  }
  std::string ip = hostIpFor(metaString(node, "name"));
  json addresses = json::array({{{"type", "InternalIP"}, {"address", ip}},
                                {{"type", "Hostname"}, {"address", metaString(node, "name")}}});
  if (status.value("addresses", json::array()) != addresses) changed = true;
  if (!status.contains("nodeInfo")) changed = true;
  if (!changed && !heartbeat_due) return std::nullopt;

  status["conditions"] = conditions;
  status["addresses"] = addresses;
  json info = status.value("nodeInfo", json::object());
  info["kubeletVersion"] = kKubeletVersion;
  info["kubeProxyVersion"] = kKubeletVersion;
  info["containerRuntimeVersion"] = "containerd://1.7.0-troupe-sim";
  info["operatingSystem"] = "linux";
  info["architecture"] = "amd64";
  if (!info.contains("osImage")) info["osImage"] = "Troupe simulated node";
  status["nodeInfo"] = info;
  status["daemonEndpoints"] = {{"kubeletEndpoint", {{"Port", 10250}}}};
  return status;
}

json nodeLease(const json& node, Time now) {
  std::string name = metaString(node, "name");
  json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                {"kind", "Lease"},
                {"metadata", {{"name", name}, {"namespace", std::string(kNodeLeaseNamespace)}}},
                {"spec",
                 {{"holderIdentity", name},
                  {"leaseDurationSeconds", 40},
                  {"renewTime", formatRfc3339(now, 6)}}}};
  std::string uid = objectMember(node, "metadata").value("uid", "");
  if (!uid.empty()) {
    lease["metadata"]["ownerReferences"] =
        json::array({{{"apiVersion", "v1"}, {"kind", "Node"}, {"name", name}, {"uid", uid}}});
  }
  return lease;
}

}  // namespace troupe::kubelet
