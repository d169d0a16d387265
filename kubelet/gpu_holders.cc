#include "kubelet/gpu_holders.h"

#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <utility>

#include "common/json_member.h"
#include "kubelet/pod_admission.h"

namespace troupe::kubelet {

namespace {

// The prefix NVIDIA's device plugin gives MIG slice resources on its mixed strategy.
constexpr std::string_view kMigResourcePrefix = "nvidia.com/mig-";

// "what: pod part, pod part" for each holder list, in the lists' order.
template <typename Key>
void describeHolders(const std::map<Key, std::map<std::string, std::string>>& by_what,
                     std::vector<std::string>& entries) {
  for (const auto& [what, holders] : by_what) {
    std::vector<std::string> names;
    for (const auto& [key, part] : holders) names.push_back(key + part);
    entries.push_back(fmt::format("{}: {}", what, fmt::join(names, ", ")));
  }
}

}  // namespace

std::string gpuHolders(const std::vector<const nlohmann::json*>& pods) {
  // GPU index (or slice resource) -> (pod key -> its part, "" when whole). Ordered maps: a
  // total order, whatever order the pods come in.
  std::map<int, std::map<std::string, std::string>> by_gpu;
  std::map<std::string, std::map<std::string, std::string>> by_slice;
  for (const nlohmann::json* pod : pods) {
    const std::string key = metaString(*pod, "namespace") + "/" + metaString(*pod, "name");
    const std::int32_t milli = gpuFractionOf(*pod);
    // Thousandths print exactly as a decimal: 500 is "0.5", 125 is "0.125".
    const std::string part = milli > 0 ? fmt::format(" {}", milli / 1000.0) : std::string();
    for (int i : gpuIndicesOf(*pod)) by_gpu[i][key] = part;
    for (const auto& [resource, amount] : requestsOf(*pod))
      if (resource.rfind(kMigResourcePrefix, 0) == 0 && amount > 0)
        by_slice[resource][key] = fmt::format(" {}", amount);
  }
  std::vector<std::string> entries;
  describeHolders(by_gpu, entries);
  describeHolders(by_slice, entries);
  return fmt::format("{}", fmt::join(entries, "; "));
}

}  // namespace troupe::kubelet
