#pragma once

#include <nlohmann/json.hpp>

// Whether an update of an object changes what the scheduling cycle reads of it.
//
// Every event used to ask for a cycle. At 5,000 nodes the simulated kubelets marking pods
// Running, node heartbeats and the operator's own status writes kept cycles running back
// to back, each deciding nothing, so a new job waited for the cycle in progress before its
// own: half a cycle more on every reclaim. An update that changes nothing the snapshot
// reads (controllers/cluster_snapshot.h) now leaves the scheduler idle; the periodic cycle
// (every 2 s) still comes.
namespace troupe::controllers {

// Pods: labels, annotations, spec, deletion, and whether the phase is terminal. A start
// time alone does not count (minRuntimeSeconds is served by the periodic cycle).
bool podUpdateMatters(const nlohmann::json& before, const nlohmann::json& after);

// PodGroups: spec, annotations, deletion, and whether the phase is terminal (the operator's
// own status writes do not count).
bool podGroupUpdateMatters(const nlohmann::json& before, const nlohmann::json& after);

// Nodes: labels, annotations, spec, allocatable and the Ready condition's status (a
// heartbeat does not count, nor troupe.dev/gpu-holders, which the simulated kubelets
// rewrite as pods come and go and which says nothing the pods do not).
bool nodeUpdateMatters(const nlohmann::json& before, const nlohmann::json& after);

// Queues: spec and deletion. The operator writes each queue's status after the cycles that
// change its allocation and mirrors its decayed usage into an annotation; neither is read
// back by the snapshot (the usage comes from the state store).
bool queueUpdateMatters(const nlohmann::json& before, const nlohmann::json& after);

}  // namespace troupe::controllers
