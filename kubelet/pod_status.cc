#include "kubelet/pod_status.h"

#include <fmt/format.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "common/json_member.h"
#include "common/rfc3339.h"

namespace troupe::kubelet {

namespace {

using json = nlohmann::json;

// FNV-1a, 64 bits: a stable hash (std::hash may differ between builds).
std::uint64_t fnv1a(const std::string& text, std::uint64_t seed = 14695981039346656037ull) {
  std::uint64_t h = seed;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// 64 hex digits, as a container runtime's IDs and image digests look.
std::string hex64(const std::string& text) {
  std::string out;
  std::uint64_t seed = 14695981039346656037ull;
  for (int part = 0; part < 4; ++part) {
    seed = fnv1a(text, seed + static_cast<std::uint64_t>(part));
    out += fmt::format("{:016x}", seed);
  }
  return out;
}

std::string nodeName(const json& pod) { return objectMember(pod, "spec").value("nodeName", ""); }

// Sets condition `type` in `status.conditions`, keeping lastTransitionTime when the status
// does not change.
void setCondition(json& conditions, const std::string& type, const std::string& value,
                  const std::string& reason, const std::string& now) {
  json condition = {{"type", type}, {"status", value}, {"lastProbeTime", nullptr}};
  if (!reason.empty()) condition["reason"] = reason;
  condition["lastTransitionTime"] = now;
  for (const auto& old : conditions) {
    if (old.value("type", "") == type && old.value("status", "") == value &&
        old.contains("lastTransitionTime")) {
      condition["lastTransitionTime"] = old["lastTransitionTime"];
    }
  }
  for (auto& old : conditions) {
    if (old.value("type", "") == type) {
      old = condition;
      return;
    }
  }
  conditions.push_back(condition);
}

// The kubelet's order of pod conditions; others (readiness gates, DisruptionTarget) follow
// in the order they had.
json orderedConditions(const json& conditions) {
  static const std::vector<std::string> kOrder = {"Initialized", "Ready", "ContainersReady",
                                                  "PodScheduled"};
  json out = json::array();
  for (const auto& type : kOrder)
    for (const auto& c : conditions)
      if (c.value("type", "") == type) out.push_back(c);
  for (const auto& c : conditions) {
    bool known = false;
    for (const auto& type : kOrder) known = known || c.value("type", "") == type;
    if (!known) out.push_back(c);
  }
  return out;
}

// The status with the fields every kubelet report carries: addresses, startTime, the
// PodScheduled condition (kept from binding; added when the pod was created bound).
json baseStatus(const json& pod, const std::string& now) {
  json status = pod.value("status", json::object());
  if (!status.is_object()) status = json::object();
  json& conditions = status["conditions"];
  if (!conditions.is_array()) conditions = json::array();
  bool scheduled = false;
  for (const auto& c : conditions) scheduled = scheduled || c.value("type", "") == "PodScheduled";
  if (!scheduled) setCondition(conditions, "PodScheduled", "True", "", now);
  std::string host_ip = hostIpFor(nodeName(pod));
  std::string pod_ip = podIpFor(nodeName(pod), metaString(pod, "uid"));
  status["hostIP"] = host_ip;
  status["hostIPs"] = json::array({{{"ip", host_ip}}});
  status["podIP"] = pod_ip;
  status["podIPs"] = json::array({{{"ip", pod_ip}}});
  if (!status.contains("startTime")) status["startTime"] = now;
  return status;
}

std::string containerId(const json& pod, const std::string& container) {
  return "containerd://" + hex64(metaString(pod, "uid") + "/" + container);
}

std::string imageId(const std::string& image) {
  std::string repo = image.substr(0, image.find(':'));
  return repo + "@sha256:" + hex64(image);
}

// The running state's startedAt of container `name` in the current status, if any.
std::string startedAtOf(const json& pod, const std::string& name) {
  const json& status = objectMember(pod, "status");
  for (const auto& cs : status.value("containerStatuses", json::array())) {
    if (cs.value("name", "") != name) continue;
    const json& state = objectMember(cs, "state");
    for (const char* key : {"running", "terminated"}) {
      if (state.contains(key) && state[key].contains("startedAt") &&
          state[key]["startedAt"].is_string())
        return state[key]["startedAt"];
    }
  }
  return "";
}

// One status per entry of spec.<list>, each given `state`, in spec order.
json containerStatuses(const json& pod, const char* list,
                       const std::function<json(const std::string& name)>& state, bool ready,
                       bool started) {
  json out = json::array();
  for (const auto& c : arrayMember(objectMember(pod, "spec"), list)) {
    if (!c.is_object()) continue;
    std::string name = c.value("name", "");
    std::string image = c.value("image", "");
    out.push_back({{"name", name},
                   {"state", state(name)},
                   {"lastState", json::object()},
                   {"ready", ready},
                   {"restartCount", 0},
                   {"image", image},
                   {"imageID", imageId(image)},
                   {"containerID", containerId(pod, name)},
                   {"started", started}});
  }
  return out;
}

// Init containers ran to completion before the main containers started.
void setInitContainers(json& status, const json& pod, const std::string& started) {
  json statuses = containerStatuses(
      pod, "initContainers",
      [&](const std::string& name) {
        return json{{"terminated",
                     {{"exitCode", 0},
                      {"reason", "Completed"},
                      {"startedAt", started},
                      {"finishedAt", started},
                      {"containerID", containerId(pod, name)}}}};
      },
      false, false);
  if (!statuses.empty()) status["initContainerStatuses"] = statuses;
}

json terminatedStatus(const json& pod, const std::string& phase, const std::string& pod_reason,
                      const std::string& message, int exit_code,
                      const std::string& container_reason, const std::string& container_message,
                      Time when) {
  std::string now = formatRfc3339(when);
  json status = baseStatus(pod, now);
  status["phase"] = phase;
  if (pod_reason.empty()) {
    status.erase("reason");
    status.erase("message");
  } else {
    status["reason"] = pod_reason;
    status["message"] = message;
  }
  std::string ready_reason = phase == "Succeeded" ? "PodCompleted" : "PodFailed";
  setCondition(status["conditions"], "Initialized", "True", "", now);
  setCondition(status["conditions"], "Ready", "False", ready_reason, now);
  setCondition(status["conditions"], "ContainersReady", "False", ready_reason, now);
  status["conditions"] = orderedConditions(status["conditions"]);
  std::string pod_start = status.value("startTime", now);
  setInitContainers(status, pod, pod_start);
  status["containerStatuses"] = containerStatuses(
      pod, "containers",
      [&](const std::string& name) {
        std::string started = startedAtOf(pod, name);
        json terminated = {{"exitCode", exit_code}, {"reason", container_reason}};
        if (!container_message.empty()) terminated["message"] = container_message;
        terminated["startedAt"] = started.empty() ? pod_start : started;
        terminated["finishedAt"] = now;
        terminated["containerID"] = containerId(pod, name);
        return json{{"terminated", terminated}};
      },
      false, false);
  return status;
}

}  // namespace

std::string hostIpFor(const std::string& node_name) {
  std::uint64_t h = fnv1a(node_name);
  return fmt::format("172.{}.{}.{}", 16 + h % 16, (h >> 8) % 256, 1 + (h >> 16) % 254);
}

std::string podIpFor(const std::string& node_name, const std::string& pod_uid) {
  std::uint64_t n = fnv1a(node_name);
  std::uint64_t p = fnv1a(pod_uid);
  return fmt::format("10.{}.{}.{}", 128 + n % 128, (n >> 8) % 256, 2 + p % 252);
}

json runningStatus(const json& pod, Time started) {
  std::string now = formatRfc3339(started);
  json status = baseStatus(pod, now);
  status["phase"] = "Running";
  status.erase("reason");
  status.erase("message");
  for (const char* type : {"Initialized", "Ready", "ContainersReady"})
    setCondition(status["conditions"], type, "True", "", now);
  status["conditions"] = orderedConditions(status["conditions"]);
  setInitContainers(status, pod, status.value("startTime", now));
  status["containerStatuses"] = containerStatuses(
      pod, "containers",
      [&](const std::string&) {
        return json{{"running", {{"startedAt", now}}}};
      },
      true, true);
  return status;
}

json exitedStatus(const json& pod, int exit_code, Time finished) {
  bool ok = exit_code == 0;
  return terminatedStatus(pod, ok ? "Succeeded" : "Failed", "", "", exit_code,
                          ok ? "Completed" : "Error", "", finished);
}

json nodeLostStatus(const json& pod, Time now) {
  std::string message = fmt::format("Node {} which was running pod {} is unresponsive",
                                    nodeName(pod), metaString(pod, "name"));
  return terminatedStatus(pod, "Failed", "NodeLost", message, 137, "ContainerStatusUnknown",
                          "The container could not be located when the pod was terminated", now);
}

json rejectedStatus(const json& pod, const std::string& reason, const std::string& message,
                    Time now) {
  const std::string at = formatRfc3339(now);
  json status = baseStatus(pod, at);
  status["phase"] = "Failed";
  status["reason"] = reason;
  status["message"] = message;
  setCondition(status["conditions"], "Ready", "False", "PodFailed", at);
  setCondition(status["conditions"], "ContainersReady", "False", "PodFailed", at);
  status["conditions"] = orderedConditions(status["conditions"]);
  status.erase("containerStatuses");
  status.erase("initContainerStatuses");
  return status;
}

json invalidSimulationStatus(const json& pod, const std::string& message, Time now) {
  return terminatedStatus(pod, "Failed", "InvalidSimulationAnnotation", message, 128, "StartError",
                          message, now);
}

}  // namespace troupe::kubelet
