#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <optional>
#include <string>

#include "common/clock.h"
#include "kubelet/sim_clock.h"

// What the simulated kubelet does next with one pod, as a pure function of the pod, its
// node and the time: the whole lifecycle of a simulated container in one place.
//
//   bound, node Ready            --start delay-->  Running
//   Running with a duration      --duration-->     Succeeded / Failed (exit code)
//   deletionTimestamp set        --termination-->  removed (DELETE, grace period 0)
//   node NotReady or deleted     -->               Failed, reason NodeLost
//   terminal and being deleted   -->               removed
//
// Every delay is simulated seconds from the pod's annotations (kubelet/pod_simulation.h)
// turned into wall-clock time by the speed factor.
namespace troupe::kubelet {

enum class PodAction {
  Ignore,        // nothing to do now or later (not ours, finished, runs until deleted)
  Wait,          // something is due after `wait`
  Start,         // report Running
  Exit,          // report Succeeded or Failed with `exit_code`
  FailNodeLost,  // report Failed, NodeLost
  FailInvalid,   // report Failed: the annotations are invalid (`message` says why)
  Reject,        // report Failed: not admitted on its node (`reason`, `message`)
  Remove,        // DELETE the pod with grace period 0
};

const char* podActionName(PodAction action);

// The pod's node as the kubelet sees it.
enum class NodeHealth {
  Unknown,   // no such Node (never seen), or its kubelet has not posted yet: the pod waits
  Ready,     // Ready condition True
  NotReady,  // Ready condition False or Unknown, or missing
  Deleted,   // the Node was deleted while the kubelet watched
};

// What the kubelet remembers of a pod besides the object: precise times (the object's
// timestamps have whole seconds only), and whether it admitted the pod.
struct PodMemory {
  Time first_seen_bound{};      // when the kubelet first saw the pod bound to its node
  std::optional<Time> started;  // when it reported Running
  // Admitted on its node (kubelet/pod_admission.h): from then on it holds the node's
  // resources and its GPUs until it finishes or is gone from the API.
  bool admitted = false;
};

struct PodDecision {
  PodAction action = PodAction::Ignore;
  std::chrono::milliseconds wait{0};  // for Wait
  int exit_code = 0;                  // for Exit
  std::string reason;                 // for Reject
  std::string message;                // for FailInvalid and Reject

  static PodDecision of(PodAction action) {
    PodDecision d;
    d.action = action;
    return d;
  }
  static PodDecision waitFor(std::chrono::milliseconds wait) {
    PodDecision d = of(PodAction::Wait);
    d.wait = wait;
    return d;
  }
  static PodDecision exit(int exit_code) {
    PodDecision d = of(PodAction::Exit);
    d.exit_code = exit_code;
    return d;
  }
  static PodDecision failInvalid(std::string message) {
    PodDecision d = of(PodAction::FailInvalid);
    d.message = std::move(message);
    return d;
  }

  friend bool operator==(const PodDecision&, const PodDecision&) = default;
};

PodDecision decidePod(const nlohmann::json& pod, NodeHealth node, const PodMemory& memory, Time now,
                      const SimSpeed& speed);

// When the containers of a running pod started: `memory.started`, else the running
// state's startedAt of the first container, else status.startTime.
std::optional<Time> startedAt(const nlohmann::json& pod, const PodMemory& memory);

}  // namespace troupe::kubelet
