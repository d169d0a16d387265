#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

// The log of a simulated container (standalone mode). A real API server streams what the
// kubelet reads from the container runtime; here the kubelets and their containers are
// simulated (kubelet/), so a container's log is what the simulation did with it, read
// from the pod's own object: where and when it started, the image, the GPUs and the
// environment it was given (a training job's rank, world size and master address), how
// long it runs, and how it ended. The same pod object always gives the same lines.
namespace troupe::apiserver {

struct LogLine {
  std::string time;  // RFC 3339 with nanoseconds, as the kubelet stamps lines
  std::string text;  // without the newline
};

// An RFC 3339 time of the pod's status ("2026-11-24T21:00:00Z") as the kubelet stamps log
// lines ("2026-11-24T21:00:00.000000000Z"); other forms are returned as they are. Lines
// compare by these stamps as strings, so `sinceTime` is turned into one too.
std::string logTimestamp(const std::string& time);

// The lines of `container` (a container or init container of `pod`) so far: none until it
// has started, then the start lines, and the exit line once it has terminated.
std::vector<LogLine> simulatedContainerLog(const nlohmann::json& pod, const std::string& container);

// The container's state in the pod's status: "waiting" (with its reason in `reason`),
// "running", "terminated", or "" when the status does not list it yet.
std::string containerState(const nlohmann::json& pod, const std::string& container,
                           std::string* reason = nullptr);

}  // namespace troupe::apiserver
