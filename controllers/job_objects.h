#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

// The objects a TrainingJob owns, rendered from the job: its PodGroup (the gang the
// scheduler loop places), its headless Service (stable DNS names for the replicas) and
// one Pod per replica. Pure functions of the job, so they are tested as data.
namespace troupe::controllers {

// The port replica 0 listens on for rendezvous, unless the job's annotation
// troupe.dev/master-port says otherwise.
inline constexpr std::int64_t kDefaultMasterPort = 29500;
inline constexpr const char* kMasterPortAnnotation = "troupe.dev/master-port";
// "mpi" on a job adds Open MPI's rank variables to every container.
inline constexpr const char* kLauncherAnnotation = "troupe.dev/launcher";
// On each pod: which restart of the gang it belongs to (status.restarts when created).
inline constexpr const char* kGangRestartAnnotation = "troupe.dev/gang-restart";

// PodGroup "<job>" in the job's namespace: minMember = minReplicas (or replicas), the
// job's queue and priority class, and annotations for what PodGroup has no field for
// (preemptible, topology, runtime estimate, first submission time).
nlohmann::json renderPodGroup(const nlohmann::json& job, std::int64_t submitted_at);

// Service "<job>": headless (clusterIP None), selecting the job's pods, publishing
// not-ready addresses so replicas find each other while they start.
nlohmann::json renderService(const nlohmann::json& job);

// Pod "<job>-<index>": the template's pod with schedulerName troupe, restartPolicy Never
// (the gang restarts as a whole, never one pod), hostname "<job>-<index>" and subdomain
// "<job>", labels troupe.dev/job-name, troupe.dev/pod-group, troupe.dev/replica-index,
// and in every container the distributed-training environment:
//   RANK=<index> NODE_RANK=<index> WORLD_SIZE=<replicas> LOCAL_RANK=0
//   MASTER_ADDR=<job>-0.<job>.<namespace>.svc MASTER_PORT=<port>
//   PET_NNODES=<min>:<max> (elastic jobs, as torchrun reads it)
//   OMPI_COMM_WORLD_RANK / OMPI_COMM_WORLD_SIZE (troupe.dev/launcher: mpi)
// Variables of the same name in the template are replaced.
nlohmann::json renderPod(const nlohmann::json& job, std::int32_t index, std::int32_t restart);

std::string podName(const std::string& job, std::int32_t index);
std::string masterAddress(const nlohmann::json& job);

}  // namespace troupe::controllers
