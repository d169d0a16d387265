#include "queueing/gang_placer.h"

#include <algorithm>
#include <bit>
#include <numeric>

#include "common/check.h"

namespace troupe::queueing {
namespace {

class Placer {
 public:
  Placer(EngineState& st, GangId g, const PlaceOptions& o) : st_(st), g_(g), o_(o) {
    if (st_.placer_scratch.stamp.size() < st_.nodes.size()) {
      st_.placer_scratch.stamp.resize(st_.nodes.size(), 0);
      st_.placer_scratch.free.resize(st_.nodes.size());
      st_.placer_scratch.gpus.resize(st_.nodes.size());
      st_.placer_scratch.shares.resize(st_.nodes.size());
    }
    ++st_.placer_scratch.epoch;
    if (st_.placer_scratch.epoch == 0) {  // wrapped: forget every stamp
      std::fill(st_.placer_scratch.stamp.begin(), st_.placer_scratch.stamp.end(), 0);
      st_.placer_scratch.epoch = 1;
    }
  }

  bool blocked(NodeId n) const { return !st_.nodes[n].usable() || blockedIfUsable(n); }

  // blocked() for a node known to be usable: every node of a class's `eligible` list is,
  // since the list is rebuilt whenever a node changes (node_epoch). usable() reads the
  // node's spec, a cache line a scan over thousands of nodes otherwise never touches.
  bool blockedIfUsable(NodeId n) const {
    const NodeState& node = st_.nodes[n];
    if (o_.only_level >= 0 &&
        node.domain[static_cast<std::size_t>(o_.only_level)] != o_.only_domain)
      return true;
    if (o_.ignore_reservations || node.reserved_for == kNoGang || node.reserved_for == o_.self)
      return false;
    // Only a gang expected to end before the reservation's start may use its nodes.
    return o_.backfill_end == kNever || o_.backfill_end > node.reserved_until;
  }

  // The capacity left on node n, after the pods this placement already put there.
  ResourceVector& free(NodeId n) {
    load(n);
    return st_.placer_scratch.free[n];
  }
  std::uint64_t& gpus(NodeId n) {
    load(n);
    return st_.placer_scratch.gpus[n];
  }
  GpuShares& shares(NodeId n) {
    load(n);
    return st_.placer_scratch.shares[n];
  }

  // Thousandths of one GPU each pod of pod set `ps` asks (PodShape::gpu_milli).
  std::int32_t gpuMilliOf(std::int32_t ps) const {
    return st_.gangs[g_].spec.pod_sets[static_cast<std::size_t>(ps)].shape->gpu_milli;
  }

  std::int64_t podsFit(NodeId n, const ResourceVector& req, std::int32_t gpu_milli,
                       std::int64_t cap) {
    return podsFitOn(free(n), gpus(n), shares(n), req, gpu_milli, cap);
  }

  // podsFit() before this placement has put any pod anywhere: read from the node itself,
  // without copying it into the scratch overlay (a scan visits every eligible node, and
  // the copies cost more than the test).
  std::int64_t podsFitUntouched(NodeId n, const ResourceVector& req, std::int32_t gpu_milli,
                                std::int64_t cap) const {
    const NodeState& node = st_.nodes[n];
    if (o_.empty_cluster)
      return podsFitOn(node.spec.allocatable, node.all_gpus, {}, req, gpu_milli, cap);
    return podsFitOn(node.free, node.free_gpus, node.gpu_shares, req, gpu_milli, cap);
  }

  // Orders candidates for packing: least free capacity first in the resource the pod
  // needs most (packingSlot), ties by node name; freest first when planning on an empty
  // cluster (a reservation wants the nodes that free soonest).
  // Pods asking a fraction of one GPU go by the thousandths of GPU left for fractions, so
  // that they fill nodes whose GPUs are shared already.
  void orderForPacking(std::vector<NodeId>& nodes, const ResourceVector& req,
                       std::int32_t gpu_milli) {
    const std::size_t slot = packingSlot(req);
    const bool freest_first = o_.empty_cluster;
    std::vector<std::pair<std::int64_t, std::uint32_t>> keys;
    keys.reserve(nodes.size());
    for (NodeId n : nodes) {
      std::int64_t room = o_.empty_cluster ? st_.nodes[n].free[slot] : free(n)[slot];
      if (gpu_milli > 0) room = fractionRoom(gpus(n), shares(n));
      keys.emplace_back(freest_first ? -room : room, st_.nodes[n].rank);
    }
    std::vector<std::uint32_t> idx(nodes.size());
    std::iota(idx.begin(), idx.end(), 0u);
    std::sort(idx.begin(), idx.end(),
              [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
    std::vector<NodeId> out;
    out.reserve(nodes.size());
    for (std::uint32_t i : idx) out.push_back(nodes[i]);
    nodes = std::move(out);
  }

  // Puts `want` pods of pod set `ps` on `nodes` (already ordered); false if they do not fit.
  bool fill(const std::vector<NodeId>& nodes, std::int32_t ps, std::int64_t want,
            std::vector<Pod>& out) {
    const ResourceVector& req = st_.requestOf(g_, ps);
    const int g = static_cast<int>(req[kGpu]);
    const std::int32_t milli = gpuMilliOf(ps);
    for (NodeId n : nodes) {
      if (want == 0) break;
      std::int64_t k = std::min(podsFit(n, req, milli, want), want);
      for (; k > 0; --k, --want) {
        free(n) -= req;
        if (milli > 0) {
          out.push_back(Pod{ps, n, shareGpu(n, milli), false, milli});
          continue;
        }
        const std::uint64_t chosen = g > 0 ? pickGpus(gpus(n), st_.nodes[n].gpu_groups, g) : 0;
        gpus(n) &= ~chosen;
        out.push_back(Pod{ps, n, chosen});
      }
    }
    return want == 0;
  }

  // Gives a pod of `milli` thousandths its share of one GPU of node n (which podsFit said
  // has room), in the overlay; returns that GPU.
  std::uint64_t shareGpu(NodeId n, std::int32_t milli) {
    const int i = pickSharedGpu(gpus(n), shares(n), milli);
    TROUPE_CHECK(i >= 0, "node {}: no GPU has room for a share of {} thousandths",
                 st_.nodes[n].spec.name, milli);
    GpuShares& s = shares(n);
    if (s.empty()) s.assign(64, 0);
    s[static_cast<std::size_t>(i)] += milli;
    const std::uint64_t gpu = std::uint64_t{1} << i;
    gpus(n) &= ~gpu;
    return gpu;
  }

  Placement run(const std::vector<std::int32_t>& counts) {
    const GangState& gs = st_.gangs[g_];
    std::vector<std::int32_t> sets;
    for (std::size_t i = 0; i < counts.size(); ++i)
      if (counts[i] > 0) sets.push_back(static_cast<std::int32_t>(i));
    Placement result;
    if (sets.empty()) {
      result.ok = true;
      return result;
    }
    levels_ = levelsToTry(gs.spec.topology);
    if (sets.size() == 1) return single(sets[0], counts[static_cast<std::size_t>(sets[0])]);
    return multiple(sets, counts);
  }

 private:
  void load(NodeId n) {
    if (st_.placer_scratch.stamp[n] == st_.placer_scratch.epoch) return;
    st_.placer_scratch.stamp[n] = st_.placer_scratch.epoch;
    const NodeState& node = st_.nodes[n];
    st_.placer_scratch.free[n] = o_.empty_cluster ? node.spec.allocatable : node.free;
    st_.placer_scratch.gpus[n] = o_.empty_cluster ? node.all_gpus : node.free_gpus;
    if (o_.empty_cluster)
      st_.placer_scratch.shares[n].clear();
    else
      st_.placer_scratch.shares[n] = node.gpu_shares;
  }

  // Levels to try, narrowest domain first; -1 is the whole cluster.
  std::vector<std::int32_t> levelsToTry(const TopologyConstraint& t) const {
    const auto n =
        static_cast<std::int32_t>(std::min(st_.policy.topology_levels.size(), kMaxLevels));
    std::vector<std::int32_t> out;
    if (t.mode == TopologyMode::Required) {
      out.push_back(st_.levelIndex(t.level));
      return out;
    }
    const std::int32_t start = t.mode == TopologyMode::Preferred ? st_.levelIndex(t.level) : n - 1;
    for (std::int32_t l = start; l >= 0; --l) out.push_back(l);
    out.push_back(-1);
    return out;
  }

  // The tally of `kind` for `want` pods, brought up to date with the capacity log, or
  // null when this placement cannot use one: a scan tally assumes no node is blocked but
  // for not being eligible, so it needs free capacity (not an empty cluster), no domain
  // restriction and no reservation anywhere.
  ScanTally* tallyFor(KindId kind, std::int64_t want, const ConstraintClass& cls,
                      const ResourceVector& req, std::int32_t gpu_milli) {
    if (!st_.policy.share_placement_scans || kind == kNoKind || o_.empty_cluster ||
        o_.only_level >= 0 || !st_.reservations.empty() || st_.nodes_dirty)
      return nullptr;
    ScanTally* t = nullptr;
    for (auto& candidate : st_.scan_tallies.tallies)
      if (candidate.kind == kind && candidate.want == want &&
          candidate.node_epoch == st_.versions.nodes)
        t = &candidate;
    // A tally with more changes to apply than there are nodes is scanned again.
    bool rescan =
        t == nullptr || st_.scan_tallies.capacity_log.size() - t->log_pos > st_.nodes.size();
    if (t == nullptr) {
      if (st_.scan_tallies.tallies.size() < ScanTallies::kMax) {
        t = &st_.scan_tallies.tallies.emplace_back();
      } else {
        t = &*std::min_element(
            st_.scan_tallies.tallies.begin(), st_.scan_tallies.tallies.end(),
            [](const auto& a, const auto& b) { return a.last_use < b.last_use; });
      }
    }
    if (rescan) {
      t->kind = kind;
      t->want = want;
      t->node_epoch = st_.versions.nodes;
      t->log_pos = st_.scan_tallies.capacity_log.size();
      t->pods.assign(st_.nodes.size(), 0);
      t->total = 0;
      for (std::int32_t l : levels_) {
        if (l < 0) continue;
        t->domain_pods[static_cast<std::size_t>(l)].assign(
            st_.domains[static_cast<std::size_t>(l)].names.size(), 0);
      }
      scan(cls, req, gpu_milli, want, t->pods.data(), t->total, t->domain_pods, nullptr);
    }
    for (; t->log_pos < st_.scan_tallies.capacity_log.size(); ++t->log_pos) {
      const NodeId n = st_.scan_tallies.capacity_log[t->log_pos];
      if (n >= cls.allows.size() || !cls.allows[n]) continue;
      const std::int64_t k = podsFitUntouched(n, req, gpu_milli, want);
      const std::int64_t delta = k - t->pods[n];
      if (delta == 0) continue;
      t->pods[n] = k;
      t->total += delta;
      const NodeState& node = st_.nodes[n];
      for (std::int32_t l : levels_) {
        if (l < 0) continue;
        const std::int32_t d = node.domain[static_cast<std::size_t>(l)];
        if (d >= 0)
          t->domain_pods[static_cast<std::size_t>(l)][static_cast<std::size_t>(d)] += delta;
      }
    }
    t->last_use = ++st_.scan_tallies.clock;
    return t;
  }

  // Visits every eligible node that may hold a pod of `req`: records how many of `want`
  // each holds (in `pods_by_node`, by node id, and in `cand`, in node order, when given),
  // their sum and each level's tally by domain.
  void scan(const ConstraintClass& cls, const ResourceVector& req, std::int32_t gpu_milli,
            std::int64_t want, std::int64_t* pods_by_node, std::int64_t& total,
            std::array<std::vector<std::int64_t>, kMaxLevels>& domain_pods,
            std::vector<std::pair<NodeId, std::int64_t>>* cand) {
    // The levels' tallies, as plain pointers for the loop below.
    std::array<std::int32_t, kMaxLevels> tally_level{};
    std::array<std::int64_t*, kMaxLevels> tally{};
    std::size_t tallies = 0;
    for (std::int32_t l : levels_) {
      if (l < 0) continue;
      tally_level[tallies] = l;
      tally[tallies++] = domain_pods[static_cast<std::size_t>(l)].data();
    }
    // On free capacity, runs of nodes none of which has the GPUs of one pod are skipped.
    const std::int64_t skip_below = o_.empty_cluster ? 0 : req[kGpu];
    const auto& eligible = cls.eligible;
    for (std::size_t i = st_.node_runs.skipFullChunks(eligible, 0, skip_below); i < eligible.size();
         i = st_.node_runs.skipFullChunks(eligible, i + 1, skip_below)) {
      const NodeId n = eligible[i];
      if (blockedIfUsable(n)) continue;
      const std::int64_t k = podsFitUntouched(n, req, gpu_milli, want);
      if (k == 0) continue;
      if (pods_by_node != nullptr) pods_by_node[n] = k;
      if (cand != nullptr) cand->emplace_back(n, k);
      total += k;
      const NodeState& node = st_.nodes[n];
      for (std::size_t t = 0; t < tallies; ++t) {
        const std::int32_t d = node.domain[static_cast<std::size_t>(tally_level[t])];
        if (d >= 0) tally[t][d] += k;
      }
    }
  }

  Placement single(std::int32_t ps, std::int64_t want) {
    Placement result;
    const GangState& gs = st_.gangs[g_];
    const ConstraintClass& cls = st_.eligibility(gs.classes[static_cast<std::size_t>(ps)]);
    const ResourceVector& req = st_.requestOf(g_, ps);
    const std::int32_t milli = gpuMilliOf(ps);
    // A gang of one pod set carries its kind: one scan serves every gang of the kind.
    const ScanTally* tally =
        gs.spec.pod_sets.size() == 1 ? tallyFor(gs.kind, want, cls, req, milli) : nullptr;
    std::vector<std::pair<NodeId, std::int64_t>> cand;
    std::int64_t total = 0;
    const std::array<std::vector<std::int64_t>, kMaxLevels>* domain_pods = nullptr;
    if (tally != nullptr) {
      total = tally->total;
      domain_pods = &tally->domain_pods;
    } else {
      for (std::int32_t l : levels_) {
        if (l < 0) continue;
        auto& acc = st_.placer_scratch.domain_pods[static_cast<std::size_t>(l)];
        acc.assign(st_.domains[static_cast<std::size_t>(l)].names.size(), 0);
      }
      cand.reserve(cls.eligible.size());
      scan(cls, req, milli, want, nullptr, total, st_.placer_scratch.domain_pods, &cand);
      domain_pods = &st_.placer_scratch.domain_pods;
    }
    // How many of `want` pods node n holds, from the tally or afresh.
    auto holds = [&](NodeId n) -> std::int64_t {
      if (tally != nullptr) return tally->pods[n];
      if (n >= cls.allows.size() || !cls.allows[n] || blocked(n)) return 0;
      return podsFitUntouched(n, req, milli, want);
    };
    // The largest domain at the gang's own level, for explanations.
    const std::int32_t own = levels_.front();
    result.level = own;
    if (own < 0) {
      result.domain_pods = total;
    } else {
      const auto& acc = (*domain_pods)[static_cast<std::size_t>(own)];
      const auto& rank = st_.domains[static_cast<std::size_t>(own)].rank;
      for (std::size_t d = 0; d < acc.size(); ++d) {
        if (acc[d] > result.domain_pods ||
            (acc[d] == result.domain_pods && acc[d] > 0 &&
             rank[d] < rank[static_cast<std::size_t>(result.domain)])) {
          result.domain_pods = acc[d];
          result.domain = static_cast<std::int32_t>(d);
        }
      }
    }
    for (std::int32_t l : levels_) {
      std::vector<NodeId> nodes;
      std::int32_t best_domain = -1;
      if (l < 0) {
        if (total < want) break;
        if (tally != nullptr) {
          for (NodeId n : cls.eligible)
            if (tally->pods[n] > 0) nodes.push_back(n);
        } else {
          for (const auto& [n, k] : cand) nodes.push_back(n);
        }
      } else {
        // Best fit: the domain with the least room that still holds the gang.
        const auto& acc = (*domain_pods)[static_cast<std::size_t>(l)];
        const auto& rank = st_.domains[static_cast<std::size_t>(l)].rank;
        std::int32_t best = -1;
        for (std::size_t d = 0; d < acc.size(); ++d) {
          if (acc[d] < want) continue;
          const auto b = static_cast<std::size_t>(best);
          if (best < 0 || acc[d] < acc[b] || (acc[d] == acc[b] && rank[d] < rank[b]))
            best = static_cast<std::int32_t>(d);
        }
        if (best < 0) continue;
        best_domain = best;
        // The candidates in that domain, from its own list (tens of nodes) rather than a
        // pass over every candidate: the same set, the order is set by orderForPacking.
        for (NodeId n :
             st_.domains[static_cast<std::size_t>(l)].nodes[static_cast<std::size_t>(best)])
          if (holds(n) > 0) nodes.push_back(n);
      }
      orderForPacking(nodes, req, milli);
      std::vector<Pod> pods;
      if (fill(nodes, ps, want, pods)) {
        result.ok = true;
        result.pods = std::move(pods);
        result.scope_level = l;
        result.scope_domain = l < 0 ? -1 : best_domain;
        return result;
      }
      break;  // counts were exact: cannot happen, but never loop on it
    }
    return result;
  }

  // Several pod sets: try domains of each level (least free GPUs first among those with
  // enough in total), placing the pod sets largest pod first.
  Placement multiple(const std::vector<std::int32_t>& sets,
                     const std::vector<std::int32_t>& counts) {
    Placement result;
    const GangState& gs = st_.gangs[g_];
    std::vector<std::int32_t> order = sets;
    std::sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
      const auto& ra = st_.requestOf(g_, a);
      const auto& rb = st_.requestOf(g_, b);
      if (ra[kGpu] != rb[kGpu]) return ra[kGpu] > rb[kGpu];
      if (ra[kCpu] != rb[kCpu]) return ra[kCpu] > rb[kCpu];
      return a < b;
    });
    ResourceVector need;
    for (std::int32_t ps : sets)
      need += st_.requestOf(g_, ps) * counts[static_cast<std::size_t>(ps)];

    auto attempt = [&](const std::vector<NodeId>& domain_nodes) -> bool {
      ++st_.placer_scratch.epoch;  // a fresh overlay for each attempt
      if (st_.placer_scratch.epoch == 0) {
        std::fill(st_.placer_scratch.stamp.begin(), st_.placer_scratch.stamp.end(), 0);
        st_.placer_scratch.epoch = 1;
      }
      std::vector<Pod> pods;
      for (std::int32_t ps : order) {
        const ConstraintClass& cls = st_.eligibility(gs.classes[static_cast<std::size_t>(ps)]);
        const ResourceVector& req = st_.requestOf(g_, ps);
        const std::int32_t milli = gpuMilliOf(ps);
        std::vector<NodeId> nodes;
        for (NodeId n : domain_nodes)
          if (n < cls.allows.size() && cls.allows[n] && !blocked(n) &&
              podsFit(n, req, milli, 1) > 0)
            nodes.push_back(n);
        orderForPacking(nodes, req, milli);
        if (!fill(nodes, ps, counts[static_cast<std::size_t>(ps)], pods)) return false;
      }
      result.ok = true;
      result.pods = std::move(pods);
      return true;
    };

    constexpr std::size_t kDomainAttempts = 8;
    for (std::int32_t l : levels_) {
      if (l < 0) {
        if (attempt(st_.nodes_by_rank)) return result;
        break;
      }
      const Domains& doms = st_.domains[static_cast<std::size_t>(l)];
      std::vector<std::pair<std::int64_t, std::uint32_t>> cands;  // (free gpus, rank)
      std::vector<std::int32_t> ids;
      for (std::size_t d = 0; d < doms.names.size(); ++d) {
        ResourceVector room;
        for (NodeId n : doms.nodes[d])
          if (!blocked(n))
            room += o_.empty_cluster ? st_.nodes[n].spec.allocatable : st_.nodes[n].free;
        if (!need.fitsIn(room)) continue;
        cands.emplace_back(room[kGpu], doms.rank[d]);
        ids.push_back(static_cast<std::int32_t>(d));
      }
      std::vector<std::size_t> idx(ids.size());
      std::iota(idx.begin(), idx.end(), std::size_t{0});
      std::sort(idx.begin(), idx.end(),
                [&](std::size_t a, std::size_t b) { return cands[a] < cands[b]; });
      for (std::size_t i = 0; i < idx.size() && i < kDomainAttempts; ++i) {
        if (attempt(doms.nodes[static_cast<std::size_t>(ids[idx[i]])])) {
          result.scope_level = l;
          result.scope_domain = ids[idx[i]];
          return result;
        }
      }
    }
    return result;
  }

  EngineState& st_;
  GangId g_;
  const PlaceOptions& o_;
  std::vector<std::int32_t> levels_;
};

}  // namespace

std::size_t packingSlot(const ResourceVector& request) {
  return request[kGpu] > 0 ? kGpu : (request[kCpu] > 0 ? kCpu : kMemory);
}

KindCapacity kindCapacity(EngineState& st, std::int32_t cls, const ResourceVector& request,
                          std::int32_t gpu_milli, TopologyMode mode, std::int32_t level) {
  KindCapacity out;
  const auto levels =
      static_cast<std::int32_t>(std::min(st.policy.topology_levels.size(), kMaxLevels));
  out.level = mode == TopologyMode::None ? levels - 1 : level;
  std::vector<std::int64_t> acc;
  if (out.level >= 0) acc.assign(st.domains[static_cast<std::size_t>(out.level)].names.size(), 0);
  std::int64_t total = 0;
  constexpr std::int64_t kMany = std::int64_t{1} << 40;
  const auto& eligible = st.eligibility(cls).eligible;
  for (std::size_t i = st.node_runs.skipFullChunks(eligible, 0, request[kGpu]); i < eligible.size();
       i = st.node_runs.skipFullChunks(eligible, i + 1, request[kGpu])) {
    const NodeId n = eligible[i];
    const NodeState& node = st.nodes[n];
    if (!node.usable() || node.reserved_for != kNoGang) continue;
    const std::int64_t k =
        podsFitOn(node.free, node.free_gpus, node.gpu_shares, request, gpu_milli, kMany);
    if (k <= 0) continue;
    total += k;
    if (out.level >= 0) {
      const std::int32_t d = node.domain[static_cast<std::size_t>(out.level)];
      if (d >= 0) acc[static_cast<std::size_t>(d)] += k;
    }
  }
  if (out.level < 0) {
    out.domain_pods = total;
  } else {
    const auto& rank = st.domains[static_cast<std::size_t>(out.level)].rank;
    for (std::size_t d = 0; d < acc.size(); ++d) {
      if (acc[d] > out.domain_pods || (acc[d] == out.domain_pods && acc[d] > 0 &&
                                       rank[d] < rank[static_cast<std::size_t>(out.domain)])) {
        out.domain_pods = acc[d];
        out.domain = static_cast<std::int32_t>(d);
      }
    }
  }
  out.max_pods = mode == TopologyMode::Required ? out.domain_pods : total;
  return out;
}

Placement placeGang(EngineState& st, GangId g, const std::vector<std::int32_t>& counts,
                    const PlaceOptions& options) {
  Placer placer(st, g, options);
  return placer.run(counts);
}

}  // namespace troupe::queueing
