#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string_view>

#include "common/result.h"

// What a pod's annotations ask of the simulated kubelet (standalone mode): how long its
// containers take to start, how long they run, the exit code they end with, and how long
// they take to stop once the pod is deleted. All durations are simulated seconds (divided
// by `troupe serve --sim-speed` to get wall-clock time).
namespace troupe::kubelet {

// Annotations read here beyond those in api/well_known.h (kSimDurationAnnotation and
// kSimExitCodeAnnotation).
inline constexpr std::string_view kSimStartAnnotation = "troupe.dev/sim-start-seconds";
inline constexpr std::string_view kSimTerminationAnnotation = "troupe.dev/sim-termination-seconds";

inline constexpr double kDefaultStartSeconds = 1;
inline constexpr double kDefaultTerminationSeconds = 1;

struct PodSimulation {
  // From binding to Running.
  double start_seconds = kDefaultStartSeconds;
  // From Running to the containers' exit; none: the pod runs until it is deleted.
  std::optional<double> duration_seconds;
  // 0: Succeeded; otherwise Failed with this exit code (1..255).
  int exit_code = 0;
  // From the delete request to the containers' exit (capped by the grace period).
  double termination_seconds = kDefaultTerminationSeconds;

  friend bool operator==(const PodSimulation&, const PodSimulation&) = default;
};

// Reads the annotations of `pod`. A value that breaks its rule is an Invalid error whose
// field_path names the annotation ("metadata.annotations[troupe.dev/sim-exit-code]").
// Durations are decimal seconds >= 0 (at most ten years); the exit code is an integer 0..255.
Result<PodSimulation> readPodSimulation(const nlohmann::json& pod);

}  // namespace troupe::kubelet
