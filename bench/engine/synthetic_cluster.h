#pragma once

#include <cstdint>
#include <string>

#include "queueing/snapshot.h"

namespace troupe::bench {

// The size of a synthetic cluster for the engine benchmark.
struct SyntheticShape {
  int nodes = 1000;      // 8 GPUs each, racks of 32 nodes, blocks of 8 racks
  int queues = 100;      // leaf queues, in a three-level tree
  int pending = 10'000;  // pending gangs of 1 to 64 pods
  uint64_t seed = 20171001;
  // Share of the GPUs already held by running gangs (the steady state).
  double busy_fraction = 0.85;
  // 1, or 2 for a two-type cluster: racks alternate GPU types a and b (label
  // nvidia.com/gpu.product, quota slots gpu.troupe.dev/a and /b as extended slots 3 and 4),
  // guarantees split evenly between them, running gangs on one type each, and pending gangs
  // a third on a, a third on b, a third accepting both (either first).
  int gpu_types = 1;
};

// Builds a cluster of `shape`, the same for the same shape and seed on every machine (a
// SplitMix64 stream, no std:: distributions):
// - nodes "node-NNNNN" of 8 GPUs (two NVLink islands of 4, two NUMA nodes), labelled with
//   their rack (32 nodes) and block (8 racks);
// - a tree root -> departments -> teams -> leaf queues, about cbrt(queues) wide at the top
//   two levels; guarantees split 90% of the GPUs evenly over leaves, over-quota weights 1..4;
// - running gangs filling `busy_fraction` of the nodes whole (1 to 8 pods of 8 GPUs on
//   consecutive nodes) plus half-full nodes holding one 4-GPU pod;
// - `pending` gangs: half single pods of 1, 2, 4 or 8 GPUs, the rest 2 to 64 pods of
//   8 GPUs (sizes skewed small), a quarter of multi-pod ones asking for a rack, spread
//   over the leaves with submit times in the past hour, priorities 0..2.
// With gpu_types 2 the same stream is drawn, plus the pending gangs' types after each.
queueing::Snapshot makeSyntheticSnapshot(const SyntheticShape& shape);

// Name and pod count of the k-th extra gang the incremental benchmark submits.
queueing::GangSpec makeSyntheticArrival(const SyntheticShape& shape, int k, queueing::Seconds now);

}  // namespace troupe::bench
