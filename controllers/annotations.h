#pragma once

#include <string_view>

// Annotations the operator writes on the objects it creates, for itself to read back.
// They carry what a PodGroup's spec has no field for when the group is made from a
// TrainingJob, so the scheduler loop reads every gang the same way.
namespace troupe::controllers {

// PodGroup: "false" makes the gang non-preemptible (TrainingJob spec.preemptible).
inline constexpr std::string_view kPreemptibleAnnotation = "troupe.dev/preemptible";
// PodGroup: a topology constraint, level (a node label key) and mode (Required|Preferred).
inline constexpr std::string_view kTopologyLevelAnnotation = "troupe.dev/topology-level";
inline constexpr std::string_view kTopologyModeAnnotation = "troupe.dev/topology-mode";
// PodGroup: the expected run time in seconds (TrainingJob spec.runtimeEstimateSeconds).
inline constexpr std::string_view kRuntimeEstimateAnnotation =
    "troupe.dev/runtime-estimate-seconds";
// PodGroup: when the gang was first submitted (seconds since the epoch). Kept across
// preemptions and restarts, so a requeued gang keeps its place.
inline constexpr std::string_view kSubmittedAtAnnotation = "troupe.dev/submitted-at";

// PodGroup: set by the scheduler loop to the preemptor's name when it preempts the gang,
// cleared when the gang is admitted again. The TrainingJob controller shows the job as
// Suspended with reason Preempted meanwhile.
inline constexpr std::string_view kPreemptedByAnnotation = "troupe.dev/preempted-by";

}  // namespace troupe::controllers
