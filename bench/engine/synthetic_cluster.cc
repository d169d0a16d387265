#include "bench/engine/synthetic_cluster.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <vector>

namespace troupe::bench {
namespace {

constexpr int kGpusPerNode = 8;
constexpr int kNodesPerRack = 32;
constexpr int kRacksPerBlock = 8;
constexpr queueing::Seconds kNow = 1'000'000;

// SplitMix64: a tiny, fully specified generator, so the same seed gives the same cluster
// with any standard library.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n) (the modulo bias is negligible for these small n).
  int below(int n) { return static_cast<int>(next() % static_cast<uint64_t>(n)); }
  bool chance(double p) { return static_cast<double>(next() >> 11) * 0x1.0p-53 < p; }

 private:
  uint64_t state_;
};

std::shared_ptr<const queueing::PodShape> podOf(int gpus) {
  auto shape = std::make_shared<queueing::PodShape>();
  shape->requests = queueing::ResourceVector::of(gpus, 0, 0);
  return shape;
}

// A pod of `gpus` GPUs of type `type` (0: a, 1: b) in a two-type cluster: it selects the
// type's nodes and asks its quota slot for its GPUs. Shapes are shared, as podOf's are.
std::shared_ptr<const queueing::PodShape> typedPodOf(int gpus, int type) {
  static const auto kShapes = [] {
    std::array<std::array<std::shared_ptr<const queueing::PodShape>, 2>, kGpusPerNode + 1> out{};
    for (int g = 1; g <= kGpusPerNode; ++g)
      for (int t = 0; t < 2; ++t) {
        auto shape = std::make_shared<queueing::PodShape>();
        shape->requests = queueing::ResourceVector::of(g, 0, 0);
        shape->requests[queueing::kFirstExtended + static_cast<std::size_t>(t)] = g;
        shape->node_selector = {{"nvidia.com/gpu.product", t == 0 ? "a" : "b"}};
        out[static_cast<size_t>(g)][static_cast<size_t>(t)] = std::move(shape);
      }
    return out;
  }();
  return kShapes[static_cast<size_t>(gpus)][static_cast<size_t>(type)];
}

// The type of node n's rack in a two-type cluster: racks alternate.
int rackType(int n) { return (n / kNodesPerRack) % 2; }

// `set` as it runs on `type`.
queueing::PodSet onType(const queueing::PodSet& set, int type) {
  return {typedPodOf(static_cast<int>(set.shape->requests[queueing::kGpu]), type), set.count,
          set.min_count};
}

// Makes a pending gang of a two-type cluster accept a (0), b (1), or both (2: a then b; 3:
// b then a).
void chooseTypes(queueing::GangSpec& gang, SplitMix64& rng) {
  const int accepts = rng.below(3) == 2 ? 2 + rng.below(2) : rng.below(2);
  const int first = accepts == 1 || accepts == 3 ? 1 : 0;
  const queueing::PodSet plain = gang.pod_sets[0];
  gang.pod_sets[0] = onType(plain, first);
  if (accepts < 2) return;
  gang.variant = first == 0 ? "a" : "b";
  gang.alternatives.push_back({first == 0 ? "b" : "a", {onType(plain, 1 - first)}});
}

std::string leafName(int q) { return fmt::format("q-{:04d}", q); }

// Pods of a pending multi-pod gang: 2^k for k in 1..6, smaller sizes more likely.
int multiPodCount(SplitMix64& rng) {
  int k = 1;
  while (k < 6 && rng.chance(0.5)) ++k;
  return 1 << k;
}

queueing::GangSpec pendingGang(SplitMix64& rng, std::string name, int queues,
                               queueing::Seconds submit) {
  static const auto kPods = std::array{podOf(1), podOf(2), podOf(4), podOf(8)};
  queueing::GangSpec gang;
  gang.name = std::move(name);
  gang.queue = leafName(rng.below(queues));
  gang.priority = rng.below(3);
  gang.submit_time = submit;
  queueing::PodSet set;
  if (rng.chance(0.5)) {
    set.shape = kPods[static_cast<size_t>(rng.below(4))];
    set.count = set.min_count = 1;
  } else {
    set.shape = kPods[3];
    set.count = set.min_count = multiPodCount(rng);
    if (rng.chance(0.25)) {
      gang.topology = {queueing::TopologyMode::Preferred, "troupe.dev/rack"};
    }
  }
  gang.pod_sets.push_back(std::move(set));
  return gang;
}

}  // namespace

queueing::Snapshot makeSyntheticSnapshot(const SyntheticShape& shape) {
  SplitMix64 rng(shape.seed);
  queueing::Snapshot snap;
  snap.now = kNow;

  snap.nodes.reserve(static_cast<size_t>(shape.nodes));
  for (int n = 0; n < shape.nodes; ++n) {
    queueing::NodeSpec node;
    node.name = fmt::format("node-{:05d}", n);
    int rack = n / kNodesPerRack;
    node.labels = {{"troupe.dev/block", fmt::format("block-{:03d}", rack / kRacksPerBlock)},
                   {"troupe.dev/rack", fmt::format("rack-{:04d}", rack)}};
    node.allocatable = queueing::ResourceVector::of(kGpusPerNode, 0, 0);
    if (shape.gpu_types == 2) {
      node.labels.emplace_back("nvidia.com/gpu.product", rackType(n) == 0 ? "a" : "b");
      node.allocatable[queueing::kFirstExtended + static_cast<size_t>(rackType(n))] = kGpusPerNode;
    }
    node.nvlink_islands = {{0, 1, 2, 3}, {4, 5, 6, 7}};
    node.numa_nodes = {{0, 1, 2, 3}, {4, 5, 6, 7}};
    snap.nodes.push_back(std::move(node));
  }

  // Three levels: departments, teams, leaves. Leaf q sits in team q % teams, team t in
  // department t % departments.
  const int width = std::max(1, static_cast<int>(std::lround(std::cbrt(shape.queues))));
  const int departments = width;
  const int teams = std::min(shape.queues, width * width);
  const int64_t total_gpus = int64_t{shape.nodes} * kGpusPerNode;
  const int64_t per_leaf = total_gpus * 9 / 10 / shape.queues;
  std::vector<int64_t> team_guarantee(static_cast<size_t>(teams), 0);
  std::vector<int64_t> dept_guarantee(static_cast<size_t>(departments), 0);
  for (int q = 0; q < shape.queues; ++q) team_guarantee[static_cast<size_t>(q % teams)] += per_leaf;
  for (int t = 0; t < teams; ++t) {
    dept_guarantee[static_cast<size_t>(t % departments)] += team_guarantee[static_cast<size_t>(t)];
  }
  // Two types: each guarantee half of a, half of b.
  auto guarantee = [&](int64_t gpus) {
    auto v = queueing::ResourceVector::of(gpus, 0, 0);
    if (shape.gpu_types == 2) {
      v[queueing::kFirstExtended] = gpus / 2;
      v[queueing::kFirstExtended + 1] = gpus - gpus / 2;
    }
    return v;
  };
  for (int d = 0; d < departments; ++d) {
    queueing::QueueSpec q;
    q.name = fmt::format("dept-{:02d}", d);
    q.guaranteed = guarantee(dept_guarantee[static_cast<size_t>(d)]);
    snap.queues.push_back(std::move(q));
  }
  for (int t = 0; t < teams; ++t) {
    queueing::QueueSpec q;
    q.name = fmt::format("team-{:03d}", t);
    q.parent = fmt::format("dept-{:02d}", t % departments);
    q.guaranteed = guarantee(team_guarantee[static_cast<size_t>(t)]);
    snap.queues.push_back(std::move(q));
  }
  for (int l = 0; l < shape.queues; ++l) {
    queueing::QueueSpec q;
    q.name = leafName(l);
    q.parent = fmt::format("team-{:03d}", l % teams);
    q.guaranteed = guarantee(per_leaf);
    q.over_quota_weight = 1 + rng.below(4);
    snap.queues.push_back(std::move(q));
  }

  // Running gangs: walk the nodes; a busy stretch of 1..8 whole nodes becomes one gang of
  // 8-GPU pods, an idle node is sometimes half used by a 4-GPU pod.
  const auto whole = podOf(kGpusPerNode);
  const auto half = podOf(4);
  int running = 0;
  for (int n = 0; n < shape.nodes;) {
    if (!rng.chance(shape.busy_fraction)) {
      if (rng.chance(0.3)) {
        queueing::RunningGang gang;
        gang.spec.name = fmt::format("run-{:06d}", running++);
        gang.spec.queue = leafName(rng.below(shape.queues));
        gang.spec.submit_time = kNow - 7200 - rng.below(86400);
        gang.spec.pod_sets.push_back(
            {shape.gpu_types == 2 ? typedPodOf(4, rackType(n)) : half, 1, 1});
        gang.start_time = gang.spec.submit_time + rng.below(3600);
        gang.pods.push_back({0, snap.nodes[static_cast<size_t>(n)].name, {0, 1, 2, 3}});
        snap.running.push_back(std::move(gang));
      }
      ++n;
      continue;
    }
    int pods = std::min(1 + rng.below(8), shape.nodes - n);
    // Two types: a gang stays in its rack, on one type.
    if (shape.gpu_types == 2) pods = std::min(pods, kNodesPerRack - n % kNodesPerRack);
    queueing::RunningGang gang;
    gang.spec.name = fmt::format("run-{:06d}", running++);
    gang.spec.queue = leafName(rng.below(shape.queues));
    gang.spec.submit_time = kNow - 7200 - rng.below(86400);
    gang.spec.pod_sets.push_back(
        {shape.gpu_types == 2 ? typedPodOf(kGpusPerNode, rackType(n)) : whole, pods, pods});
    gang.start_time = gang.spec.submit_time + rng.below(3600);
    for (int p = 0; p < pods; ++p) {
      gang.pods.push_back(
          {0, snap.nodes[static_cast<size_t>(n + p)].name, {0, 1, 2, 3, 4, 5, 6, 7}});
    }
    snap.running.push_back(std::move(gang));
    n += pods;
  }

  snap.pending.reserve(static_cast<size_t>(shape.pending));
  for (int g = 0; g < shape.pending; ++g) {
    snap.pending.push_back(
        pendingGang(rng, fmt::format("pend-{:06d}", g), shape.queues, kNow - 1 - rng.below(3600)));
    if (shape.gpu_types == 2) chooseTypes(snap.pending.back(), rng);
  }
  return snap;
}

queueing::GangSpec makeSyntheticArrival(const SyntheticShape& shape, int k, queueing::Seconds now) {
  SplitMix64 rng(shape.seed ^ (0x5bd1e995ULL * static_cast<uint64_t>(k + 1)));
  queueing::GangSpec gang = pendingGang(rng, fmt::format("arrival-{:06d}", k), shape.queues, now);
  if (shape.gpu_types == 2) chooseTypes(gang, rng);
  return gang;
}

}  // namespace troupe::bench
