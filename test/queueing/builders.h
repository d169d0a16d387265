#pragma once

// Builders for engine scenarios: a test reads as a story.
//   node("n1").gpus(8).rack("r1")
//   gang("train-a").queue("team-a").pods(4).gpus(8).submittedAt(10)
//   queue("team-a").guaranteed(gpus(16))

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "queueing/engine.h"
#include "queueing/snapshot.h"

namespace troupe::queueing::testing {

inline constexpr std::int64_t kGiB = std::int64_t{1} << 30;

inline ResourceVector gpus(std::int64_t n) { return ResourceVector::of(n, 0, 0); }

class NodeBuilder {
 public:
  explicit NodeBuilder(std::string name) {
    n_.name = std::move(name);
    n_.allocatable = ResourceVector::of(8, 64000, 512 * kGiB);
  }
  NodeBuilder& gpus(std::int64_t n) {
    n_.allocatable[kGpu] = n;
    return *this;
  }
  NodeBuilder& cpu(std::int64_t milli) {
    n_.allocatable[kCpu] = milli;
    return *this;
  }
  NodeBuilder& memory(std::int64_t bytes) {
    n_.allocatable[kMemory] = bytes;
    return *this;
  }
  NodeBuilder& label(std::string k, std::string v) {
    n_.labels.emplace_back(std::move(k), std::move(v));
    return *this;
  }
  // A node of GPU type `type`: its product label, and its GPUs in the type's quota slot
  // (as the caller converts GPU types). Call after gpus().
  NodeBuilder& gpuType(const std::string& type, std::size_t slot) {
    n_.allocatable[slot] = n_.allocatable[kGpu];
    return label("nvidia.com/gpu.product", type);
  }
  NodeBuilder& rack(std::string r) { return label("troupe.dev/rack", std::move(r)); }
  NodeBuilder& block(std::string b) { return label("troupe.dev/block", std::move(b)); }
  NodeBuilder& taint(std::string k, std::string v, TaintEffect e = TaintEffect::NoSchedule) {
    n_.taints.push_back(Taint{std::move(k), std::move(v), e});
    return *this;
  }
  NodeBuilder& unschedulable() {
    n_.unschedulable = true;
    return *this;
  }
  NodeBuilder& notReady() {
    n_.ready = false;
    return *this;
  }
  NodeBuilder& islands(std::vector<std::vector<int>> g) {
    n_.nvlink_islands = std::move(g);
    return *this;
  }
  NodeBuilder& numa(std::vector<std::vector<int>> g) {
    n_.numa_nodes = std::move(g);
    return *this;
  }
  operator NodeSpec() const { return n_; }  // NOLINT: implicit by design
  NodeSpec build() const { return n_; }

 private:
  NodeSpec n_;
};

inline NodeBuilder node(std::string name) { return NodeBuilder(std::move(name)); }

class QueueBuilder {
 public:
  explicit QueueBuilder(std::string name) { q_.name = std::move(name); }
  QueueBuilder& parent(std::string p) {
    q_.parent = std::move(p);
    return *this;
  }
  QueueBuilder& guaranteed(ResourceVector v) {
    q_.guaranteed = v;
    return *this;
  }
  QueueBuilder& guaranteedGpus(std::int64_t n) {
    q_.guaranteed = queueing::testing::gpus(n);
    return *this;
  }
  // Guaranteed, limit or lendingLimit in one slot, e.g. a GPU type's quota slot.
  QueueBuilder& guaranteedIn(std::size_t slot, std::int64_t n) {
    q_.guaranteed[slot] = n;
    return *this;
  }
  QueueBuilder& limitIn(std::size_t slot, std::int64_t n) {
    q_.limit[slot] = n;
    return *this;
  }
  QueueBuilder& whenBorrowing(VariantFungibility f) {
    q_.when_borrowing = f;
    return *this;
  }
  QueueBuilder& whenPreempting(VariantFungibility f) {
    q_.when_preempting = f;
    return *this;
  }
  QueueBuilder& limitGpus(std::int64_t n) {
    q_.limit[kGpu] = n;
    return *this;
  }
  QueueBuilder& lendingLimitGpus(std::int64_t n) {
    q_.lending_limit[kGpu] = n;
    return *this;
  }
  QueueBuilder& weight(std::int64_t w) {
    q_.over_quota_weight = w;
    return *this;
  }
  QueueBuilder& priority(std::int32_t p) {
    q_.priority = p;
    return *this;
  }
  QueueBuilder& noReclaim() {
    q_.reclaim = false;
    return *this;
  }
  QueueBuilder& noWithinQueuePreemption() {
    q_.within_queue = WithinQueuePreemption::Never;
    return *this;
  }
  QueueBuilder& maxWait(Seconds s) {
    q_.max_wait_seconds = s;
    return *this;
  }
  QueueBuilder& minRuntime(Seconds s) {
    q_.min_runtime_seconds = s;
    return *this;
  }
  QueueBuilder& usageGpus(std::int64_t n) {
    q_.decayed_usage[kGpu] = n;
    return *this;
  }
  operator QueueSpec() const { return q_; }  // NOLINT: implicit by design
  QueueSpec build() const { return q_; }

 private:
  QueueSpec q_;
};

inline QueueBuilder queue(std::string name) { return QueueBuilder(std::move(name)); }

class GangBuilder {
 public:
  explicit GangBuilder(std::string name) {
    g_.name = std::move(name);
    g_.queue = "default";
    shape_.requests = ResourceVector::of(1, 1000, kGiB);
  }
  GangBuilder& queue(std::string q) {
    g_.queue = std::move(q);
    return *this;
  }
  GangBuilder& pods(std::int32_t n) {
    count_ = n;
    min_ = n;
    return *this;
  }
  GangBuilder& elastic(std::int32_t min, std::int32_t max) {
    min_ = min;
    count_ = max;
    return *this;
  }
  GangBuilder& gpus(std::int64_t n) {
    shape_.requests[kGpu] = n;
    return *this;
  }
  GangBuilder& cpu(std::int64_t milli) {
    shape_.requests[kCpu] = milli;
    return *this;
  }
  GangBuilder& memory(std::int64_t bytes) {
    shape_.requests[kMemory] = bytes;
    return *this;
  }
  GangBuilder& priority(std::int32_t p) {
    g_.priority = p;
    return *this;
  }
  GangBuilder& submittedAt(Seconds t) {
    g_.submit_time = t;
    return *this;
  }
  GangBuilder& requireTopology(std::string level) {
    g_.topology = TopologyConstraint{TopologyMode::Required, std::move(level)};
    return *this;
  }
  GangBuilder& preferTopology(std::string level) {
    g_.topology = TopologyConstraint{TopologyMode::Preferred, std::move(level)};
    return *this;
  }
  GangBuilder& nodeSelector(std::string k, std::string v) {
    shape_.node_selector.emplace_back(std::move(k), std::move(v));
    return *this;
  }
  GangBuilder& affinity(std::string k, SelectorOperator op, std::vector<std::string> values = {}) {
    shape_.affinity.push_back(SelectorRequirement{std::move(k), op, std::move(values)});
    return *this;
  }
  GangBuilder& tolerate(std::string k, std::string v = "") {
    shape_.tolerations.push_back(
        Toleration{std::move(k), v.empty() ? TolerationOperator::Exists : TolerationOperator::Equal,
                   std::move(v), std::nullopt});
    return *this;
  }
  GangBuilder& notPreemptible() {
    g_.preemptible = false;
    return *this;
  }
  GangBuilder& runtimeEstimate(Seconds s) {
    g_.runtime_estimate = s;
    return *this;
  }
  // GPU types it accepts, in order of preference: each becomes a variant whose pods select
  // the type's nodes and ask its quota slot for their GPUs.
  GangBuilder& gpuTypes(std::vector<std::pair<std::string, std::size_t>> types) {
    types_ = std::move(types);
    return *this;
  }
  // A second pod set (e.g. a launcher) with its own shape.
  GangBuilder& plusPods(std::int32_t n, ResourceVector requests) {
    auto shape = std::make_shared<PodShape>();
    shape->requests = requests;
    extra_.push_back(PodSet{shape, n, n});
    return *this;
  }
  GangSpec build() const {
    GangSpec g = g_;
    g.pod_sets = podSets(nullptr);
    for (std::size_t i = 0; i < types_.size(); ++i) {
      if (i == 0) {
        g.variant = types_[0].first;
        g.pod_sets = podSets(&types_[0]);
      } else {
        g.alternatives.push_back(GangVariant{types_[i].first, podSets(&types_[i])});
      }
    }
    return g;
  }
  operator GangSpec() const { return build(); }  // NOLINT: implicit by design

 private:
  std::vector<PodSet> podSets(const std::pair<std::string, std::size_t>* type) const {
    PodShape shape = shape_;
    if (type != nullptr) {
      shape.node_selector.emplace_back("nvidia.com/gpu.product", type->first);
      shape.requests[type->second] = shape.requests[kGpu];
    }
    std::vector<PodSet> out{PodSet{std::make_shared<const PodShape>(shape), count_, min_}};
    for (const auto& e : extra_) out.push_back(e);
    return out;
  }

  GangSpec g_;
  PodShape shape_;
  std::vector<std::pair<std::string, std::size_t>> types_;
  std::int32_t count_ = 1;
  std::int32_t min_ = 1;
  std::vector<PodSet> extra_;
};

inline GangBuilder gang(std::string name) { return GangBuilder(std::move(name)); }

// n nodes named <prefix>-<i> of `gpus` GPUs, `per_rack` per rack (racks <prefix>-r<j>).
inline std::vector<NodeSpec> rackOfNodes(const std::string& prefix, int n, int per_rack,
                                         std::int64_t gpu_count = 8) {
  std::vector<NodeSpec> out;
  for (int i = 0; i < n; ++i)
    out.push_back(node(prefix + "-" + std::to_string(i))
                      .gpus(gpu_count)
                      .rack(prefix + "-r" + std::to_string(i / per_rack)));
  return out;
}

}  // namespace troupe::queueing::testing

namespace Catch {
template <>
struct StringMaker<troupe::queueing::PendingReason> {
  static std::string convert(troupe::queueing::PendingReason r) {
    return troupe::queueing::pendingReasonName(r);
  }
};
}  // namespace Catch
