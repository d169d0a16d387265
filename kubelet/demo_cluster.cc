#include "kubelet/demo_cluster.h"

#include <fmt/format.h>

namespace troupe::kubelet {
namespace {

using json = nlohmann::json;

// The index lists of one grouping: halves when the count is even, else one group.
json gpuGroups(int gpus) {
  json groups = json::array();
  auto range = [](int from, int to) {
    json g = json::array();
    for (int i = from; i < to; ++i) g.push_back(i);
    return g;
  };
  if (gpus % 2 == 0) {
    groups.push_back(range(0, gpus / 2));
    groups.push_back(range(gpus / 2, gpus));
  } else {
    groups.push_back(range(0, gpus));
  }
  return groups;
}

json demoNode(const std::string& name, int rack, int racks, int gpus) {
  // Two racks share a block (a spine), as in examples/cluster.yaml.
  json node = {{"apiVersion", "v1"}, {"kind", "Node"}};
  node["metadata"] = {{"name", name},
                      {"labels",
                       {{"kubernetes.io/hostname", name},
                        {"kubernetes.io/os", "linux"},
                        {"troupe.dev/rack", fmt::format("rack-{}", rack)},
                        {"troupe.dev/block", fmt::format("block-{}", (rack + 1) / 2)}}}};
  json capacity = {{"cpu", "96"}, {"memory", "1024Gi"}, {"pods", "110"}};
  json allocatable = {{"cpu", "94"}, {"memory", "1000Gi"}, {"pods", "110"}};
  if (gpus > 0) {
    // Two GPU types: the first half of the racks (rounded up) H100s, the rest A100s.
    node["metadata"]["labels"]["nvidia.com/gpu.product"] =
        rack <= (racks + 1) / 2 ? kH100Product : kA100Product;
    json groups = gpuGroups(gpus);
    // Written as examples/cluster.yaml writes it (nlohmann would sort the keys).
    node["metadata"]["annotations"]["troupe.dev/gpu-topology"] =
        fmt::format(R"({{"nvlinkIslands":{},"numa":{}}})", groups.dump(), groups.dump());
    capacity["nvidia.com/gpu"] = std::to_string(gpus);
    allocatable["nvidia.com/gpu"] = std::to_string(gpus);
  }
  node["status"] = {{"capacity", capacity}, {"allocatable", allocatable}};
  return node;
}

Error invalid(const char* flag, int value, const std::string& rule) {
  return Error{ErrorCode::Invalid, flag, fmt::format("Invalid value: {}: {}", value, rule)};
}

}  // namespace

Result<std::vector<nlohmann::json>> demoClusterNodes(const DemoClusterShape& shape) {
  if (shape.nodes < 0 || shape.nodes > 10000)
    return invalid("--nodes", shape.nodes, "must be from 0 to 10000");
  if (shape.gpus_per_node < 0 || shape.gpus_per_node > 1024)
    return invalid("--gpus-per-node", shape.gpus_per_node, "must be from 0 to 1024");
  if (shape.racks < 1 || (shape.nodes > 0 && shape.racks > shape.nodes))
    return invalid("--racks", shape.racks,
                   fmt::format("must be from 1 to the number of nodes ({})", shape.nodes));
  // Racks get nodes in turn, as evenly as the numbers allow (16 over 4: 4 each; 9 over 4:
  // 3, 2, 2, 2), named by rack and place in it.
  std::vector<nlohmann::json> nodes;
  nodes.reserve(static_cast<std::size_t>(shape.nodes));
  int previous_rack = 0, slot = 0;
  for (int i = 0; i < shape.nodes; ++i) {
    const int rack = static_cast<int>(static_cast<long long>(i) * shape.racks / shape.nodes) + 1;
    slot = rack == previous_rack ? slot + 1 : 1;
    previous_rack = rack;
    nodes.push_back(
        demoNode(fmt::format("gpu-r{}-n{}", rack, slot), rack, shape.racks, shape.gpus_per_node));
  }
  return nodes;
}

}  // namespace troupe::kubelet
