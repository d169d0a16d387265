#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

// Why a lone pod (controllers/lone_pod.h) waits, where kube-scheduler says it for its own
// pods: the pod's PodScheduled condition, False with reason Unschedulable and Troupe's
// why-pending sentence as its message (`kubectl describe pod` shows it). A lone pod that
// waits so costs the API one status write a change of reason, and no object of its own.
// The binding sets the condition True (kube-apiserver and troupe serve alike).
namespace troupe::controllers {

inline constexpr const char* kPodScheduledCondition = "PodScheduled";
inline constexpr const char* kUnschedulableReason = "Unschedulable";

// The merge patch of `pod`'s status that makes its PodScheduled condition False,
// Unschedulable, with `message`, its other conditions kept; nullopt when the pod says that
// already. lastTransitionTime is `now` (epoch seconds) unless the condition was False.
std::optional<nlohmann::json> unschedulablePatch(const nlohmann::json& pod,
                                                 const std::string& message, std::int64_t now);

}  // namespace troupe::controllers
