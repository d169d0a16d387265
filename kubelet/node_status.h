#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

#include "common/clock.h"
#include "kubelet/pod_lifecycle.h"

// The Node status a simulated kubelet keeps, and the simulated node failure.
//
// A node fails when it carries the annotation (or label) troupe.dev/sim-node-failure with
// the value "true" (`kubectl annotate node N troupe.dev/sim-node-failure=true`): its kubelet
// reports Ready=False (reason NodeFailureSimulated) and then stops posting status, as a
// crashed machine would. Removing the annotation brings it back Ready. A Ready condition
// set to False or Unknown by someone else (`kubectl patch node N --subresource=status`) is
// kept as it is: the kubelet only refreshes its heartbeat.
namespace troupe::kubelet {

inline constexpr std::string_view kSimNodeFailureAnnotation = "troupe.dev/sim-node-failure";
// The reason of the Ready=False condition the simulated failure writes.
inline constexpr std::string_view kNodeFailureReason = "NodeFailureSimulated";
// The namespace of the kubelets' Leases, as in Kubernetes.
inline constexpr std::string_view kNodeLeaseNamespace = "kube-node-lease";

// True when the node's annotation or label troupe.dev/sim-node-failure is "true".
bool failureRequested(const nlohmann::json& node);

// How the node's pods fare: Ready when its Ready condition is True, NotReady when it is
// False or Unknown, Unknown when there is none yet (its kubelet has not posted: its pods
// wait) unless the failure is requested.
NodeHealth nodeHealth(const nlohmann::json& node);

// The node status the kubelet writes at `now`, or nullopt when nothing would change and no
// heartbeat is due. Conditions (Ready, MemoryPressure, DiskPressure, PIDPressure) get
// lastHeartbeatTime = now; lastTransitionTime changes only with the status. Addresses and
// nodeInfo are filled in; capacity and allocatable are kept. A failed node gets one write
// (Ready False) and then none, heartbeat or not.
std::optional<nlohmann::json> nodeStatusUpdate(const nlohmann::json& node, Time now,
                                               bool heartbeat_due);

// The node's Lease (coordination.k8s.io/v1) as the kubelet renews it: holderIdentity the
// node name, 40 s duration, renewTime now, owned by the Node.
nlohmann::json nodeLease(const nlohmann::json& node, Time now);

}  // namespace troupe::kubelet
