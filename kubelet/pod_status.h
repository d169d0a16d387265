#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "common/clock.h"

// The pod status a kubelet reports, rendered from the pod as the server holds it. Each
// function returns the whole new `status` (for a PUT to pods/<name>/status): it keeps
// what the kubelet does not own (qosClass, the PodScheduled condition written at binding,
// unknown fields), sets the phase, the conditions in the kubelet's order (Initialized,
// Ready, ContainersReady, PodScheduled; a condition's lastTransitionTime changes only
// when its status does), hostIP/podIP, startTime and one containerStatus per container.
// Addresses and container IDs are derived from names and UIDs, so they are deterministic.
namespace troupe::kubelet {

// A stable made-up address in 172.16.0.0/12 for node `node_name`.
std::string hostIpFor(const std::string& node_name);
// A stable made-up address in 10.128.0.0/9 for the pod with `pod_uid` on `node_name`:
// the node's /24 (from its name) and a host part from the UID.
std::string podIpFor(const std::string& node_name, const std::string& pod_uid);

// Containers started at `started`: phase Running, every condition True.
nlohmann::json runningStatus(const nlohmann::json& pod, Time started);

// Containers exited at `finished` with `exit_code`: Succeeded (0, reason Completed) or
// Failed (reason Error); Ready and ContainersReady False with reason PodCompleted or
// PodFailed. startedAt comes from the running state when there was one.
nlohmann::json exitedStatus(const nlohmann::json& pod, int exit_code, Time finished);

// The pod's node failed at `now`: phase Failed, reason NodeLost, containers terminated
// with exit code 137 and reason ContainerStatusUnknown (their fate is unknown).
nlohmann::json nodeLostStatus(const nlohmann::json& pod, Time now);

// The pod's simulation annotations are invalid: phase Failed, reason
// InvalidSimulationAnnotation, the message names the annotation and the rule.
nlohmann::json invalidSimulationStatus(const nlohmann::json& pod, const std::string& message,
                                       Time now);

// The kubelet refused to admit the pod (kubelet/pod_admission.h): phase Failed with the
// refusal's reason and message, no container ever started.
nlohmann::json rejectedStatus(const nlohmann::json& pod, const std::string& reason,
                              const std::string& message, Time now);

}  // namespace troupe::kubelet
