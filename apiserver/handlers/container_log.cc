#include "apiserver/handlers/container_log.h"

#include <fmt/format.h>

#include <tuple>

#include "api/well_known.h"
#include "common/json_member.h"
#include "common/rfc3339.h"

namespace troupe::apiserver {

namespace {

using json = nlohmann::json;

const json* findNamed(const json& list, const std::string& name) {
  if (!list.is_array()) return nullptr;
  for (const auto& item : list)
    if (item.is_object() && item.value("name", "") == name) return &item;
  return nullptr;
}

// The container's spec and its status entry, from the containers or the init containers.
struct Found {
  const json* spec = nullptr;
  const json* status = nullptr;
  bool init = false;
};

// The member `key` of `object`, or null: a pointer into `object`, never into a copy
// (json::value() returns copies).
const json* member(const json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it != object.end() ? &*it : nullptr;
}

Found find(const json& pod, const std::string& container) {
  Found f;
  const json* spec = member(pod, "spec");
  const json* status = member(pod, "status");
  if (spec == nullptr) return f;
  for (const auto& [list, statuses, init] :
       {std::tuple{"containers", "containerStatuses", false},
        std::tuple{"initContainers", "initContainerStatuses", true}}) {
    const json* named = member(*spec, list);
    f.spec = named != nullptr ? findNamed(*named, container) : nullptr;
    if (f.spec == nullptr) continue;
    f.init = init;
    const json* listed = status != nullptr ? member(*status, statuses) : nullptr;
    f.status = listed != nullptr ? findNamed(*listed, container) : nullptr;
    return f;
  }
  return f;
}

std::string annotation(const json& pod, std::string_view key) {
  const json* a = nullptr;
  if (auto m = pod.find("metadata"); m != pod.end() && m->is_object())
    if (auto it = m->find("annotations"); it != m->end() && it->is_object()) a = &*it;
  if (a == nullptr) return "";
  auto it = a->find(std::string(key));
  return it != a->end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

std::string logTimestamp(const std::string& time) {
  // The status's times are whole seconds; the kubelet's stamps carry nanoseconds.
  if (time.size() == 20 && time.back() == 'Z') return time.substr(0, 19) + ".000000000Z";
  return time;
}

std::string containerState(const json& pod, const std::string& container, std::string* reason) {
  const Found f = find(pod, container);
  if (f.status == nullptr) return "";
  const json& state = objectMember(*f.status, "state");
  for (const char* s : {"terminated", "running", "waiting"}) {
    if (!state.contains(s)) continue;
    if (reason != nullptr) *reason = state[s].is_object() ? state[s].value("reason", "") : "";
    return s;
  }
  return "";
}

std::vector<LogLine> simulatedContainerLog(const json& pod, const std::string& container) {
  std::vector<LogLine> lines;
  const Found f = find(pod, container);
  if (f.spec == nullptr || f.status == nullptr) return lines;
  const json& state = objectMember(*f.status, "state");
  const json* phase = nullptr;
  for (const char* s : {"running", "terminated"})
    if (state.contains(s) && state[s].is_object()) phase = &state[s];
  if (phase == nullptr) return lines;  // waiting: nothing ran yet

  const std::string started = logTimestamp(phase->value("startedAt", ""));
  auto at_start = [&](std::string text) { lines.push_back({started, std::move(text)}); };
  const std::string node = pod.contains("spec") ? pod["spec"].value("nodeName", "") : "";
  at_start(fmt::format("troupe simulated kubelet: {}container \"{}\" (image {}) started on node {}",
                       f.init ? "init " : "", container, f.spec->value("image", ""), node));
  if (const std::string gpus = annotation(pod, api::kGpuIndicesAnnotation); !gpus.empty())
    at_start(fmt::format("troupe simulated kubelet: GPUs {} of node {}", gpus, node));
  // What a training script prints of its rendezvous: the environment set in the spec
  // (rank, world size, master address for a TrainingJob's pods), values only.
  for (const auto& env : f.spec->value("env", json::array())) {
    if (!env.is_object() || !env.contains("value") || !env["value"].is_string()) continue;
    at_start(fmt::format("troupe simulated kubelet: env {}={}", env.value("name", ""),
                         env["value"].get<std::string>()));
  }
  if (f.init) {
    at_start("troupe simulated kubelet: init containers run to completion at once");
  } else if (const std::string d = annotation(pod, api::kSimDurationAnnotation); !d.empty()) {
    const std::string code = annotation(pod, api::kSimExitCodeAnnotation);
    at_start(
        fmt::format("troupe simulated kubelet: runs {} simulated seconds ({}), then exits "
                    "with code {}",
                    d, api::kSimDurationAnnotation, code.empty() ? "0" : code));
  } else {
    at_start(
        fmt::format("troupe simulated kubelet: runs until the pod is deleted (no {} "
                    "annotation)",
                    api::kSimDurationAnnotation));
  }

  // Being deleted while it runs: the kubelet stops it within the grace period, and the
  // pod goes with it (no exit is reported), so this is the last line a follower reads.
  const json* meta = member(pod, "metadata");
  const json* deleting = meta != nullptr ? member(*meta, "deletionTimestamp") : nullptr;
  if (state.contains("running") && deleting != nullptr && deleting->is_string()) {
    const std::int64_t grace = meta->value("deletionGracePeriodSeconds", std::int64_t{0});
    std::string at = deleting->get<std::string>();
    if (auto t = parseRfc3339(at)) at = formatRfc3339(*t - std::chrono::seconds(grace));
    lines.push_back({logTimestamp(at),
                     fmt::format("troupe simulated kubelet: pod deleted, stopping container \"{}\" "
                                 "(grace period {} s)",
                                 container, grace)});
  }
  if (state.contains("terminated") && state["terminated"].is_object()) {
    const json& t = state["terminated"];
    std::string text = fmt::format("troupe simulated kubelet: container \"{}\" exited with code {}",
                                   container, t.value("exitCode", 0));
    if (const std::string reason = t.value("reason", ""); !reason.empty())
      text += fmt::format(" ({})", reason);
    if (const std::string message = t.value("message", ""); !message.empty())
      text += ": " + message;
    lines.push_back({logTimestamp(t.value("finishedAt", t.value("startedAt", ""))), text});
  }
  return lines;
}

}  // namespace troupe::apiserver
