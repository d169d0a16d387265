#pragma once

#include <string_view>

// Every label, annotation, name and resource string Troupe reads or writes, in one place.
// docs/api.md explains each one.
namespace troupe::api {

// The API group and version of Troupe's kinds.
inline constexpr std::string_view kGroup = "troupe.dev";
inline constexpr std::string_view kVersion = "v1alpha1";
inline constexpr std::string_view kApiVersion = "troupe.dev/v1alpha1";

inline constexpr std::string_view kTrainingJobKind = "TrainingJob";
inline constexpr std::string_view kQueueKind = "Queue";
inline constexpr std::string_view kPodGroupKind = "PodGroup";
inline constexpr std::string_view kGpuTypeKind = "GPUType";
inline constexpr std::string_view kTrainingJobResource = "trainingjobs";
inline constexpr std::string_view kQueueResource = "queues";
inline constexpr std::string_view kPodGroupResource = "podgroups";
inline constexpr std::string_view kGpuTypeResource = "gputypes";

// Pods with this spec.schedulerName are placed by Troupe, not by kube-scheduler.
inline constexpr std::string_view kSchedulerName = "troupe";
// The GPU extended resource (NVIDIA device plugin).
inline constexpr std::string_view kGpuResource = "nvidia.com/gpu";
inline constexpr std::string_view kCpuResource = "cpu";
inline constexpr std::string_view kMemoryResource = "memory";
inline constexpr std::string_view kPodsResource = "pods";
// What the engine counts GPUs in for quota and node capacity: thousandths of one GPU.
// The operator gives every GPU pod 1000 per whole GPU (or its fraction's thousandths),
// every node 1000 per allocatable GPU, and every queue 1000 times its nvidia.com/gpu
// guaranteed, limit and lendingLimit. Users do not set it.
inline constexpr std::string_view kGpuMilliResource = "troupe.dev/gpu-milli";
// MIG slices as NVIDIA's device plugin advertises them (mixed strategy), e.g.
// nvidia.com/mig-1g.10gb: extended resources, placed and counted like any other.
inline constexpr std::string_view kMigResourcePrefix = "nvidia.com/mig-";
// The GPUs of one GPUType are, to the scheduler, the resource "gpu.troupe.dev/<type>"
// (api/gpu_type.h): nodes of the type have as many as nvidia.com/gpu, pods placed on the
// type ask for as many as their nvidia.com/gpu, queues give it per-type quotas.
inline constexpr std::string_view kGpuTypeResourcePrefix = "gpu.troupe.dev";

// Node labels: the topology levels gang placement packs into (spec.topology.level).
inline constexpr std::string_view kRackLabel = "troupe.dev/rack";
inline constexpr std::string_view kBlockLabel = "troupe.dev/block";
inline constexpr std::string_view kHostnameLabel = "kubernetes.io/hostname";

// Pod labels. A plain pod joins a PodGroup with kPodGroupLabel; pods Troupe creates for a
// TrainingJob carry the job's name and their replica index.
inline constexpr std::string_view kPodGroupLabel = "troupe.dev/pod-group";
inline constexpr std::string_view kJobNameLabel = "troupe.dev/job-name";
inline constexpr std::string_view kReplicaIndexLabel = "troupe.dev/replica-index";
// Pod label: the queue of a pod with schedulerName troupe that joins no PodGroup, and so
// is a gang of its own (controllers/lone_pod.h).
inline constexpr std::string_view kQueueLabel = "troupe.dev/queue";

// Node annotation: GPU indices grouped by NVLink island and by NUMA node, as JSON:
// {"nvlinkIslands":[[0,1,2,3],[4,5,6,7]],"numa":[[0,1,2,3],[4,5,6,7]]} (api/gpu_topology.h).
inline constexpr std::string_view kGpuTopologyAnnotation = "troupe.dev/gpu-topology";
// Pod annotation: the pod asks for this fraction of one GPU, a decimal in (0, 1) with at
// most 3 decimals ("0.5"), and for no nvidia.com/gpu. Such pods share one GPU index.
inline constexpr std::string_view kGpuFractionAnnotation = "troupe.dev/gpu-fraction";
// Pod annotation written at binding: the GPU indices the pod got on its node, "0,1,2,3".
inline constexpr std::string_view kGpuIndicesAnnotation = "troupe.dev/gpu-indices";
// Pod annotation written at binding: the GPUType the pod's gang was placed on.
inline constexpr std::string_view kGpuTypeAnnotation = "troupe.dev/gpu-type";
// Node annotation the simulated kubelet keeps: which pod holds which GPU index and share,
// and which pods hold MIG slices (kubelet/gpu_holders.h). For people; the scheduler
// reads the pods themselves.
inline constexpr std::string_view kGpuHoldersAnnotation = "troupe.dev/gpu-holders";

// Pod annotations read by the simulated kubelet in standalone mode: how long the pod runs
// (seconds, a decimal) and the exit code it ends with (0 = Succeeded, otherwise Failed).
inline constexpr std::string_view kSimDurationAnnotation = "troupe.dev/sim-duration-seconds";
inline constexpr std::string_view kSimExitCodeAnnotation = "troupe.dev/sim-exit-code";

// Finalizer on TrainingJobs so their pods are cleaned up before the job disappears.
inline constexpr std::string_view kJobFinalizer = "troupe.dev/cleanup";

// Condition types Troupe writes (docs/api.md lists each): a TrainingJob's and a PodGroup's,
// and a Queue's (Ready).
inline constexpr std::string_view kConditionValid = "Valid";
inline constexpr std::string_view kConditionAdmitted = "Admitted";
inline constexpr std::string_view kConditionRunning = "Running";
inline constexpr std::string_view kConditionSuspended = "Suspended";
inline constexpr std::string_view kConditionRestarting = "Restarting";
inline constexpr std::string_view kConditionSucceeded = "Succeeded";
inline constexpr std::string_view kConditionFailed = "Failed";
inline constexpr std::string_view kConditionPreempted = "Preempted";
// True while the scheduler finds the queued job can never be admitted as the queues and
// nodes are (status.pending.reason Inadmissible).
inline constexpr std::string_view kConditionInadmissible = "Inadmissible";
// A Queue's: True while it can take jobs.
inline constexpr std::string_view kConditionReady = "Ready";
inline constexpr std::string_view kConditionTypes[] = {
    kConditionValid,        kConditionAdmitted,  kConditionRunning, kConditionSuspended,
    kConditionRestarting,   kConditionSucceeded, kConditionFailed,  kConditionPreempted,
    kConditionInadmissible, kConditionReady,
};

}  // namespace troupe::api
