#include "kubelet/pod_lifecycle.h"

#include <algorithm>

#include "common/json_member.h"
#include "common/rfc3339.h"
#include "kubelet/pod_simulation.h"

namespace troupe::kubelet {

namespace {

using json = nlohmann::json;
using std::chrono::milliseconds;

std::string phaseOf(const json& pod) { return objectMember(pod, "status").value("phase", ""); }

bool isRunning(const json& pod) {
  if (phaseOf(pod) != "Running") return false;
  for (const auto& cs : pod["status"].value("containerStatuses", json::array()))
    if (objectMember(cs, "state").contains("running")) return true;
  return false;
}

milliseconds until(Time due, Time now) {
  return std::max(milliseconds(1), std::chrono::ceil<milliseconds>(due - now));
}

}  // namespace

const char* podActionName(PodAction action) {
  switch (action) {
    case PodAction::Ignore: return "Ignore";
    case PodAction::Wait: return "Wait";
    case PodAction::Start: return "Start";
    case PodAction::Exit: return "Exit";
    case PodAction::FailNodeLost: return "FailNodeLost";
    case PodAction::FailInvalid: return "FailInvalid";
    case PodAction::Reject: return "Reject";
    case PodAction::Remove: return "Remove";
  }
  return "Ignore";
}

std::optional<Time> startedAt(const json& pod, const PodMemory& memory) {
  if (memory.started) return memory.started;
  const json& status = objectMember(pod, "status");
  for (const auto& cs : status.value("containerStatuses", json::array())) {
    const json& running = objectMember(objectMember(cs, "state"), "running");
    if (running.contains("startedAt") && running["startedAt"].is_string())
      if (auto t = parseRfc3339(running["startedAt"].get<std::string>())) return t;
  }
  if (status.contains("startTime") && status["startTime"].is_string())
    return parseRfc3339(status["startTime"].get<std::string>());
  return std::nullopt;
}

PodDecision decidePod(const json& pod, NodeHealth node, const PodMemory& memory, Time now,
                      const SimSpeed& speed) {
  const json& spec = objectMember(pod, "spec");
  const json& meta = objectMember(pod, "metadata");
  if (spec.value("nodeName", "").empty() || node == NodeHealth::Unknown) return {};
  std::string phase = phaseOf(pod);
  bool deleting = meta.contains("deletionTimestamp");
  if (phase == "Succeeded" || phase == "Failed") {
    return deleting ? PodDecision::of(PodAction::Remove) : PodDecision{};
  }
  // A node that stopped is no kubelet's: its pods fail before anything else happens.
  if (node == NodeHealth::NotReady || node == NodeHealth::Deleted)
    return PodDecision::of(PodAction::FailNodeLost);

  auto sim = readPodSimulation(pod);
  if (deleting) {
    // The server set deletionTimestamp = request time + grace period.
    std::int64_t grace = meta.value("deletionGracePeriodSeconds", std::int64_t{0});
    auto deadline = parseRfc3339(meta.value("deletionTimestamp", ""));
    if (!deadline || grace <= 0) return PodDecision::of(PodAction::Remove);
    Time requested = *deadline - std::chrono::seconds(grace);
    double stop = sim ? sim->termination_seconds : kDefaultTerminationSeconds;
    // The containers stop within the grace period, simulated or not.
    milliseconds wall = std::min(speed.wallTime(stop), milliseconds(grace * 1000));
    Time due = requested + wall;
    if (now >= due) return PodDecision::of(PodAction::Remove);
    return PodDecision::waitFor(until(due, now));
  }
  if (!sim) return PodDecision::failInvalid(sim.error().describe());

  if (!isRunning(pod)) {
    Time due = memory.first_seen_bound + speed.wallTime(sim->start_seconds);
    if (now >= due) return PodDecision::of(PodAction::Start);
    return PodDecision::waitFor(until(due, now));
  }
  if (!sim->duration_seconds) return {};
  auto started = startedAt(pod, memory);
  Time due = started.value_or(now) + speed.wallTime(*sim->duration_seconds);
  if (now >= due) return PodDecision::exit(sim->exit_code);
  return PodDecision::waitFor(until(due, now));
}

}  // namespace troupe::kubelet
