#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

// Whether a node's kubelet admits a pod beside the pods it already runs there.
//
// A real kubelet admits a pod it sees bound to its node only if the node's allocatable
// covers the pod's requests on top of every pod it admitted that has neither finished nor
// gone from the API (a terminating pod's containers still run until the kubelet removes
// it), and its device manager never hands one device to two pods; a pod that does not fit
// is failed at once (reason OutOf<resource>, or UnexpectedAdmissionError for a device). The
// simulated kubelet does the same, with the GPU indices Troupe binds a pod to
// (troupe.dev/gpu-indices) as its devices: two pods never run on one GPU, and a binding
// onto a GPU still in use shows as a failed pod. Pods asking a fraction of one GPU
// (troupe.dev/gpu-fraction) share an index, as a GPU-sharing device plugin lets them, up to
// the whole of it and never with a pod holding it whole.
namespace troupe::kubelet {

struct AdmissionRefusal {
  std::string reason;   // "OutOf<resource>" or "UnexpectedAdmissionError"
  std::string message;  // as a kubelet words it, with the numbers
};

// Why `pod` may not run on `node` beside `admitted` (the node's other pods the kubelet
// admitted, not finished, still in the API), or nothing when it may. Every resource the
// node's allocatable names but pods is checked, in its own units (CPU in millicores).
// The thousandths of one GPU a pod asks for with troupe.dev/gpu-fraction; 0 when it asks
// none (or the annotation does not read: the API server refused such pods).
std::int32_t gpuFractionOf(const nlohmann::json& pod);
// The GPU indices a pod was bound to (troupe.dev/gpu-indices); malformed entries left out.
std::vector<int> gpuIndicesOf(const nlohmann::json& pod);
// What a pod asks of a node, by resource, in the units a kubelet reports them in
// (millicores for CPU, else whole units): the sum over its containers (their requests, else
// their limits, which stand for requests of extended resources), or the most one init
// container asks when that is more.
std::map<std::string, std::int64_t> requestsOf(const nlohmann::json& pod);

std::optional<AdmissionRefusal> refuseAdmission(const nlohmann::json& pod,
                                                const nlohmann::json& node,
                                                const std::vector<const nlohmann::json*>& admitted);

}  // namespace troupe::kubelet
