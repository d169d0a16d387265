#pragma once

#include <string>

#include <nlohmann/json.hpp>

// The objects of the scheduler benchmarks' workload: what `troupe bench scheduler` creates
// through the API, and what troupe_cycle_bench holds in memory as the API would.
namespace troupe::bench {

// Queue `name`: with `guaranteed_gpus` > 0, that many GPUs guaranteed and reclaim on;
// otherwise no quota of its own.
nlohmann::json queueObject(const std::string& name, int guaranteed_gpus);

// A TrainingJob of `replicas` pods that run until deleted, each asking for `gpus` GPUs or,
// with none, for one CPU and 1 GiB. GPU pods ask for no CPU: the CPU pods of the
// throughput phases are packed onto few nodes, whose CPUs they fill. Pods die at once
// when deleted (no grace period), so a reclaim waits on none.
nlohmann::json trainingJobObject(const std::string& name, const std::string& queue_name,
                                 int replicas, int gpus);

}  // namespace troupe::bench
