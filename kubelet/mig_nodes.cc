#include "kubelet/mig_nodes.h"

#include <fmt/format.h>

namespace troupe::kubelet {

Result<std::vector<nlohmann::json>> migNodes(int count) {
  if (count < 0 || count > 1000)
    return Error{ErrorCode::Invalid, "--mig-nodes",
                 fmt::format("Invalid value: {}: must be from 0 to 1000", count)};
  std::vector<nlohmann::json> out;
  for (int i = 1; i <= count; ++i) {
    const std::string name = fmt::format("mig-n{}", i);
    nlohmann::json node = {{"apiVersion", "v1"}, {"kind", "Node"}};
    node["metadata"] = {{"name", name},
                        {"labels",
                         {{"kubernetes.io/hostname", name},
                          {"kubernetes.io/os", "linux"},
                          {"troupe.dev/rack", "mig-rack"},
                          {"nvidia.com/gpu.product", "H100-SXM"},
                          {"nvidia.com/mig.strategy", "mixed"}}}};
    // As the demo cluster's nodes: the kubelet keeps some CPU and memory for the system.
    nlohmann::json capacity = {{"cpu", "96"},
                               {"memory", "1Ti"},
                               {"pods", "110"},
                               {"nvidia.com/mig-1g.10gb", "32"},
                               {"nvidia.com/mig-3g.40gb", "8"}};
    nlohmann::json allocatable = capacity;
    allocatable["cpu"] = "94";
    allocatable["memory"] = "1000Gi";
    node["status"] = {{"capacity", std::move(capacity)}, {"allocatable", std::move(allocatable)}};
    out.push_back(std::move(node));
  }
  return out;
}

}  // namespace troupe::kubelet
