#include "bench/api/generated_cluster.h"

#include <fmt/format.h>

#include <fstream>

namespace troupe::bench {

std::string generatedNodeName(int index) { return fmt::format("node-{}", index); }

Result<void> writeClusterFile(const std::string& path, const GeneratedClusterShape& shape) {
  std::ofstream out(path);
  if (!out) return makeError(ErrorCode::Internal, "cluster file", "cannot write " + path);
  for (int i = 0; i < shape.nodes; ++i) {
    int rack = i / shape.nodes_per_rack + 1;
    out << fmt::format(
        "---\n"
        "apiVersion: v1\n"
        "kind: Node\n"
        "metadata:\n"
        "  name: {0}\n"
        "  labels:\n"
        "    kubernetes.io/hostname: {0}\n"
        "    kubernetes.io/os: linux\n"
        "    troupe.dev/rack: rack-{1}\n"
        "  annotations:\n"
        "    troupe.dev/gpu-topology: "
        "'{{\"nvlinkIslands\":[[0,1,2,3],[4,5,6,7]],\"numa\":[[0,1,2,3],[4,5,6,7]]}}'\n"
        "status:\n"
        "  capacity: {{nvidia.com/gpu: \"{2}\", cpu: \"96\", memory: 1024Gi, pods: \"250\"}}\n"
        "  allocatable: {{nvidia.com/gpu: \"{2}\", cpu: \"94\", memory: 1000Gi, pods: \"250\"}}\n"
        "  conditions:\n"
        "  - type: Ready\n"
        "    status: \"True\"\n"
        "    reason: KubeletReady\n",
        generatedNodeName(i), rack, shape.gpus_per_node);
  }
  out.close();
  if (!out) return makeError(ErrorCode::Internal, "cluster file", "cannot write " + path);
  return {};
}

}  // namespace troupe::bench
