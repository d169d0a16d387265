#pragma once

#include <memory>
#include <string>
#include <vector>

#include "queueing/snapshot.h"
#include "simulator/cluster_spec.h"
#include "simulator/trace.h"

// How the simulator describes its cluster and its trace jobs to the engine.
namespace troupe::simulator {

inline constexpr const char* kRackLabel = "troupe.dev/rack";
inline constexpr const char* kBlockLabel = "troupe.dev/block";
// The node label naming its GPU model, as NVIDIA's GPU feature discovery sets it.
inline constexpr const char* kGpuTypeLabel = "nvidia.com/gpu.product";
// The resource slot holding GPUs in thousandths (the operator's troupe.dev/gpu-milli):
// 1000 per whole GPU, a pod's fraction for a pod sharing one, so that quota and fair
// share count fractions.
inline constexpr std::size_t kGpuMilliSlot = queueing::kFirstExtended;

// Nodes with their GPUs (also in thousandths), CPU and memory allocatable; rack, block and
// GPU model labels; and NVLink/NUMA groups.
std::vector<queueing::NodeSpec> engineNodes(const ClusterSpec& cluster);

// Queues with GPU guarantees and limits, mirrored in thousandths (other resources
// unlimited).
std::vector<queueing::QueueSpec> engineQueues(const ClusterSpec& cluster);

// How a trace job of `gpus` GPUs becomes a gang of identical pods on nodes of at most
// `node_gpus` GPUs: one pod when it fits on a node, otherwise the fewest pods p with
// p >= ceil(gpus / node_gpus) that split the GPUs evenly (12 on 8-GPU nodes: 2 x 6;
// 32: 4 x 8). A job of 0 GPUs, or of more GPUs than the cluster holds, gets 0 pods: the
// simulator leaves it out (docs/simulator.md).
struct GangShape {
  int pods = 0;
  int gpus_per_pod = 0;
  // A fraction of one GPU per pod, in thousandths, in (0, 1000); gpus_per_pod is 0 then.
  int gpu_milli_per_pod = 0;

  // GPUs each pod holds, in thousandths.
  int64_t milliPerPod() const {
    return gpu_milli_per_pod > 0 ? gpu_milli_per_pod : int64_t{gpus_per_pod} * 1000;
  }
};
GangShape gangShapeFor(int gpus, int node_gpus, int64_t cluster_gpus);

// The shape of a trace job: gangShapeFor its GPUs, except that a job sharing one GPU is
// one pod of its fraction, and a job of 0 GPUs that asks CPU or memory is one pod of no
// GPU when the cluster simulates them (`cpu_and_memory`). A job that never ran in the
// trace gets 0 pods, as does one asking nothing the cluster simulates.
GangShape gangShapeOf(const TraceJob& job, int node_gpus, int64_t cluster_gpus,
                      bool cpu_and_memory);

// Options that shape every gang of a replay.
struct GangOptions {
  // Multi-pod gangs may run with as few as one pod (their work rate scales with pods).
  bool elastic = false;
  // Topology constraint put on multi-pod gangs.
  queueing::TopologyMode topology = queueing::TopologyMode::Preferred;
  std::string topology_level = kRackLabel;
  // Give the engine each job's true duration as its runtime estimate: for a policy that
  // is told run times (srtf), never for one that must not know them.
  bool known_durations = false;
  // Pods ask the CPU and memory the trace gives (the cluster simulates them).
  bool cpu_and_memory = false;
};

// The pending gang for `job` in `queue` (the job's queue after the default-queue rule).
queueing::GangSpec engineGang(const TraceJob& job, const std::string& queue, GangShape shape,
                              const GangOptions& options);

}  // namespace troupe::simulator
