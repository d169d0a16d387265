#include "bench/support/generated_cluster.h"

#include <fmt/format.h>

#include <fstream>

namespace troupe::bench {

std::string generatedNodeName(int index) { return fmt::format("node-{}", index); }

std::vector<nlohmann::json> generatedNodes(const GeneratedClusterShape& shape) {
  std::vector<nlohmann::json> out;
  out.reserve(static_cast<std::size_t>(shape.nodes));
  const auto gpus = std::to_string(shape.gpus_per_node);
  for (int i = 0; i < shape.nodes; ++i) {
    const auto name = generatedNodeName(i);
    const auto rack = fmt::format("rack-{}", i / shape.nodes_per_rack + 1);
    out.push_back(
        {{"apiVersion", "v1"},
         {"kind", "Node"},
         {"metadata",
          {{"name", name},
           {"labels",
            {{"kubernetes.io/hostname", name},
             {"kubernetes.io/os", "linux"},
             {"troupe.dev/rack", rack}}},
           {"annotations",
            {{"troupe.dev/gpu-topology",
              R"({"nvlinkIslands":[[0,1,2,3],[4,5,6,7]],"numa":[[0,1,2,3],[4,5,6,7]]})"}}}}},
         {"status",
          {{"capacity",
            {{"nvidia.com/gpu", gpus}, {"cpu", "96"}, {"memory", "1024Gi"}, {"pods", "250"}}},
           {"allocatable",
            {{"nvidia.com/gpu", gpus}, {"cpu", "94"}, {"memory", "1000Gi"}, {"pods", "250"}}},
           {"conditions",
            nlohmann::json::array(
                {{{"type", "Ready"}, {"status", "True"}, {"reason", "KubeletReady"}}})}}}});
  }
  return out;
}

Result<void> writeClusterFile(const std::string& path, const GeneratedClusterShape& shape) {
  std::ofstream out(path);
  if (!out) return makeError(ErrorCode::Internal, "cluster file", "cannot write " + path);
  // JSON is YAML: one flow-style document per node.
  for (const auto& node : generatedNodes(shape)) out << "---\n" << node.dump() << "\n";
  out.close();
  if (!out) return makeError(ErrorCode::Internal, "cluster file", "cannot write " + path);
  return {};
}

}  // namespace troupe::bench
