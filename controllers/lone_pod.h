#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "common/result.h"

// A pod that asks for Troupe (spec.schedulerName: troupe) without joining a PodGroup
// (no troupe.dev/pod-group label) is a gang of one, as plain pods are in Volcano and
// KAI-Scheduler: the operator makes it a PodGroup of its own, named after the pod's uid so
// that a pod deleted and made again under the same name never joins its predecessor's
// (finished) group. The pod owns that group, so the group goes when the pod does. Its
// queue comes from the pod's troupe.dev/queue label, as Kueue's plain pods name theirs.
namespace troupe::controllers {

// The PodGroup a pod belongs to, by name: its troupe.dev/pod-group label, the lone pod's
// own group for a Troupe pod without one, or "" for a pod Troupe does not schedule.
std::string podGroupName(const nlohmann::json& pod);

// The name of a lone pod's own group: "pod-<uid>".
std::string lonePodGroupName(const std::string& pod_uid);

// The PodGroup to create for a lone pod (what podGroupName names); an error naming the
// missing label when the pod names no queue.
Result<nlohmann::json> lonePodGroup(const nlohmann::json& pod);

}  // namespace troupe::controllers
