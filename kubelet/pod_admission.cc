#include "kubelet/pod_admission.h"

#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <sstream>

#include "api/gpu_fraction.h"
#include "api/quantity.h"
#include "api/well_known.h"
#include "common/json_member.h"

namespace troupe::kubelet {

namespace {

using json = nlohmann::json;

// A quantity in the units a kubelet reports it in: millicores for CPU, else whole units
// (rounded up, as Quantity::value() does). Unreadable quantities count as zero: the API
// server validated them.
std::int64_t amountOf(const std::string& resource, const json& value) {
  auto q = api::Quantity::fromJson(value);
  if (!q) return 0;
  return resource == "cpu" ? q->milliValue() : q->value();
}

}  // namespace

std::map<std::string, std::int64_t> requestsOf(const json& pod) {
  const json& spec = objectMember(pod, "spec");
  auto containerRequests = [](const json& c) {
    std::map<std::string, std::int64_t> out;
    const json& resources = objectMember(c, "resources");
    for (const char* field : {"limits", "requests"}) {  // requests override limits
      const json& list = objectMember(resources, field);
      for (const auto& [name, value] : list.items()) out[name] = amountOf(name, value);
    }
    return out;
  };
  std::map<std::string, std::int64_t> total;
  const json& containers = spec.value("containers", json::array());
  for (const auto& c : containers)
    for (const auto& [name, amount] : containerRequests(c)) total[name] += amount;
  const json& inits = spec.value("initContainers", json::array());
  for (const auto& c : inits)
    for (const auto& [name, amount] : containerRequests(c))
      total[name] = std::max(total[name], amount);
  return total;
}

std::vector<int> gpuIndicesOf(const json& pod) {
  const json& annotations = objectMember(objectMember(pod, "metadata"), "annotations");
  auto it = annotations.find(std::string(api::kGpuIndicesAnnotation));
  std::vector<int> out;
  if (it == annotations.end() || !it->is_string()) return out;
  std::stringstream in(it->get<std::string>());
  std::string part;
  while (std::getline(in, part, ',')) {
    try {
      std::size_t used = 0;
      const int v = std::stoi(part, &used);
      if (used == part.size() && v >= 0) out.push_back(v);
    } catch (const std::exception&) {
    }
  }
  return out;
}

std::int32_t gpuFractionOf(const json& pod) {
  const json& annotations = objectMember(objectMember(pod, "metadata"), "annotations");
  auto it = annotations.find(std::string(api::kGpuFractionAnnotation));
  if (it == annotations.end() || !it->is_string()) return 0;
  auto milli = api::parseGpuFraction(it->get<std::string>(), "");
  return milli ? *milli : 0;
}

namespace {

std::string keyOf(const json& pod) {
  return metaString(pod, "namespace") + "/" + metaString(pod, "name");
}

// Whether `pod` holds GPU `gpu` (its GPU indices annotation names it).
bool holdsGpu(const json& pod, int gpu) {
  const auto held = gpuIndicesOf(pod);
  return std::find(held.begin(), held.end(), gpu) != held.end();
}

// Why a pod may not hold GPU `gpu` of the node beside `admitted`: a pod asking a fraction
// of one GPU (`milli` > 0) shares it with other such pods up to the whole of it; any other
// pod holds it alone.
std::optional<AdmissionRefusal> refuseGpu(int gpu, std::int32_t milli, const std::string& node,
                                          const std::vector<const json*>& admitted) {
  std::int32_t shared = 0;
  for (const json* other : admitted) {
    if (!holdsGpu(*other, gpu)) continue;
    const std::int32_t other_milli = gpuFractionOf(*other);
    if (milli == 0 || other_milli == 0)
      return AdmissionRefusal{
          "UnexpectedAdmissionError",
          fmt::format("Allocate failed due to GPU {} of node {} being held by pod {}, which "
                      "is unexpected",
                      gpu, node, keyOf(*other))};
    shared += other_milli;
  }
  if (shared + milli > api::kGpuMilliPerGpu)
    return AdmissionRefusal{
        "UnexpectedAdmissionError",
        fmt::format("Allocate failed due to GPU {} of node {} being shared past the whole: {} "
                    "thousandths held, {} asked, {} in all, which is unexpected",
                    gpu, node, shared, milli, api::kGpuMilliPerGpu)};
  return std::nullopt;
}

}  // namespace

std::optional<AdmissionRefusal> refuseAdmission(const json& pod, const json& node,
                                                const std::vector<const json*>& admitted) {
  const std::string node_name = metaString(node, "name");
  const json& allocatable = objectMember(objectMember(node, "status"), "allocatable");

  // Devices: each GPU index is the node's, and nobody else's.
  const auto gpus = gpuIndicesOf(pod);
  const std::string gpu(api::kGpuResource);
  const std::int64_t node_gpus =
      allocatable.contains(gpu) ? amountOf(gpu, allocatable[gpu]) : std::int64_t{0};
  const std::int32_t milli = gpuFractionOf(pod);
  for (int i : gpus) {
    if (i >= node_gpus)
      return AdmissionRefusal{
          "UnexpectedAdmissionError",
          fmt::format("Allocate failed due to GPU {} not being one of the {} of node {}, which "
                      "is unexpected",
                      i, node_gpus, node_name)};
    if (auto refused = refuseGpu(i, milli, node_name, admitted)) return refused;
  }

  // Resources: what the admitted pods ask, plus this one, within allocatable.
  const auto wanted = requestsOf(pod);
  std::map<std::string, std::int64_t> used;
  for (const json* other : admitted)
    for (const auto& [name, amount] : requestsOf(*other)) used[name] += amount;
  for (const auto& [name, value] : allocatable.items()) {
    if (name == "pods") continue;
    auto want = wanted.find(name);
    if (want == wanted.end() || want->second <= 0) continue;
    const std::int64_t capacity = amountOf(name, value);
    if (used[name] + want->second > capacity)
      return AdmissionRefusal{
          "OutOf" + name,
          fmt::format("Pod was rejected: Node didn't have enough resource: {}, requested: {}, "
                      "used: {}, capacity: {}",
                      name, want->second, used[name], capacity)};
  }
  return std::nullopt;
}

}  // namespace troupe::kubelet
