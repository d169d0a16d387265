#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

// The node annotation troupe.dev/gpu-holders (api::kGpuHoldersAnnotation) a simulated
// kubelet keeps: which pod holds
// which GPU of its node, whole or in part, and which pods hold its MIG slices, so that
// `kubectl describe node` shows it, e.g.
//   "0: ml/nb-a 0.5, ml/nb-b 0.5; 1: ml/train-0; nvidia.com/mig-1g.10gb: ml/eval 2"
// GPUs by index, then MIG slice resources (nvidia.com/mig-*) by name; the pods of one GPU
// or slice by namespace/name, a pod asking a fraction of one GPU (troupe.dev/gpu-fraction)
// with its fraction, a pod holding slices with how many. Empty when no pod holds either.
// A slice has no index: the device plugin picks which slice of the node a pod gets.
namespace troupe::kubelet {

// The annotation's value for `pods`: the node's pods that hold what they were bound to
// (running, or admitted and starting; not finished).
std::string gpuHolders(const std::vector<const nlohmann::json*>& pods);

}  // namespace troupe::kubelet
