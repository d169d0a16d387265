#include "queueing/engine_state.h"

#include <cassert>

#include <algorithm>
#include <bit>

#include "common/check.h"
#include "queueing/fair_share.h"
#include "queueing/kept_guarantee.h"

namespace troupe::queueing {

EngineState::EngineState(Policy p)
    : policy(std::move(p)), kept(std::make_unique<KeptGuarantees>()) {}

EngineState::~EngineState() = default;

bool EngineState::holdsReservation(GangId g) const {
  // Every gang a walk visits asks this; the flag mirrors `reservations` (reservations.cc
  // sets it wherever that changes), which the debug build checks.
  assert(gangs[g].holds_reservation ==
         std::any_of(reservations.begin(), reservations.end(),
                     [&](const Reservation& r) { return r.gang == g; }));
  return gangs[g].holds_reservation;
}

std::int32_t EngineState::levelIndex(const std::string& level_key) const {
  for (std::size_t i = 0; i < policy.topology_levels.size(); ++i)
    if (policy.topology_levels[i] == level_key) return static_cast<std::int32_t>(i);
  return -1;
}

void EngineState::refreshIndexes() {
  if (nodes_dirty) {
    nodes_dirty = false;
    ++versions.nodes;
    ++versions.release;
    // What no node could ever hold may fit a changed node, and a queue whose gangs only
    // failed that way has no waiting kinds for the released capacity to wake it: every
    // queue is examined again.
    for (auto& q : queues) q.dirty = true;
    nodes_by_rank.clear();
    for (NodeId n = 0; n < nodes.size(); ++n)
      if (nodes[n].present) nodes_by_rank.push_back(n);
    std::sort(nodes_by_rank.begin(), nodes_by_rank.end(),
              [&](NodeId a, NodeId b) { return nodes[a].spec.name < nodes[b].spec.name; });
    for (std::uint32_t r = 0; r < nodes_by_rank.size(); ++r) nodes[nodes_by_rank[r]].rank = r;
    refreshNodeRuns();
    for (std::size_t l = 0; l < kMaxLevels; ++l) domains[l] = Domains{};
    usable_free = ResourceVector{};
    usable_capacity = ResourceVector{};
    for (NodeId n : nodes_by_rank) {
      NodeState& node = nodes[n];
      node.domain.fill(-1);
      for (std::size_t l = 0; l < policy.topology_levels.size() && l < kMaxLevels; ++l) {
        const std::string* v = labelValue(node.spec.labels, policy.topology_levels[l]);
        if (v == nullptr) continue;
        Domains& d = domains[l];
        auto [it, added] = d.ids.emplace(*v, static_cast<std::int32_t>(d.names.size()));
        if (added) {
          d.names.push_back(*v);
          d.nodes.emplace_back();
        }
        node.domain[l] = it->second;
        d.nodes[static_cast<std::size_t>(it->second)].push_back(n);
      }
      if (node.usable()) {
        usable_free += node.free;
        usable_capacity += node.spec.allocatable;
      }
    }
    for (auto& d : domains) {
      std::vector<std::int32_t> order(d.names.size());
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::int32_t>(i);
      std::sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
        return d.names[static_cast<std::size_t>(a)] < d.names[static_cast<std::size_t>(b)];
      });
      d.rank.assign(order.size(), 0);
      for (std::size_t r = 0; r < order.size(); ++r)
        d.rank[static_cast<std::size_t>(order[r])] = static_cast<std::uint32_t>(r);
    }
    shares_dirty = true;
  }
  if (queues_dirty) {
    queues_dirty = false;
    queues_by_rank.clear();
    for (QueueId q = 0; q < static_cast<QueueId>(queues.size()); ++q)
      if (queues[static_cast<std::size_t>(q)].present) queues_by_rank.push_back(q);
    std::sort(queues_by_rank.begin(), queues_by_rank.end(), [&](QueueId a, QueueId b) {
      return queues[static_cast<std::size_t>(a)].spec.name <
             queues[static_cast<std::size_t>(b)].spec.name;
    });
    for (std::uint32_t r = 0; r < queues_by_rank.size(); ++r)
      queues[static_cast<std::size_t>(queues_by_rank[r])].rank = r;
    for (auto& q : queues) {
      std::sort(q.children.begin(), q.children.end(), [&](QueueId a, QueueId b) {
        return queues[static_cast<std::size_t>(a)].spec.name <
               queues[static_cast<std::size_t>(b)].spec.name;
      });
    }
    shares_dirty = true;
  }
}

void EngineState::refreshNodeRuns() {
  std::vector<std::uint64_t> free_gpus(nodes.size());
  for (std::size_t n = 0; n < nodes.size(); ++n) free_gpus[n] = nodes[n].free_gpus;
  node_runs.rebuild(free_gpus);
}

namespace {

// The index of a share's one GPU.
std::size_t shareIndex(const NodeState& node, std::uint64_t gpus, std::int32_t gpu_milli) {
  TROUPE_CHECK(std::popcount(gpus) == 1, "node {}: a share of {} thousandths names GPUs {:x}",
               node.spec.name, gpu_milli, gpus);
  return static_cast<std::size_t>(std::countr_zero(gpus));
}

// Adds a share of `gpu_milli` to its GPU; returns the GPUs that stop being free: that GPU
// when nothing shared it yet, else none.
std::uint64_t takeShare(NodeState& node, std::uint64_t gpus, std::int32_t gpu_milli) {
  const std::size_t i = shareIndex(node, gpus, gpu_milli);
  if (node.gpu_shares.empty()) node.gpu_shares.assign(64, 0);
  std::int32_t& used = node.gpu_shares[i];
  const bool shared = used > 0;
  TROUPE_CHECK(shared || (node.free_gpus & gpus) == gpus,
               "node {} GPU {} is held whole (free {:x}): a share of {} cannot join it",
               node.spec.name, i, node.free_gpus, gpu_milli);
  TROUPE_CHECK(used + gpu_milli <= kGpuMilli,
               "node {} GPU {} shared past the whole: {} + {} thousandths > {}", node.spec.name, i,
               used, gpu_milli, kGpuMilli);
  used += gpu_milli;
  return shared ? 0 : gpus;
}

// Removes a share of `gpu_milli` from its GPU; returns the GPUs that become free: that GPU
// when no share is left on it, else none.
std::uint64_t releaseShare(NodeState& node, std::uint64_t gpus, std::int32_t gpu_milli) {
  const std::size_t i = shareIndex(node, gpus, gpu_milli);
  const std::int32_t used = node.gpu_shares.empty() ? 0 : node.gpu_shares[i];
  TROUPE_CHECK(used >= gpu_milli, "node {} GPU {} releases a share of {} thousandths, holds {}",
               node.spec.name, i, gpu_milli, used);
  node.gpu_shares[i] = used - gpu_milli;
  return used == gpu_milli ? gpus : 0;
}

// What a terminating pod brings back when it is gone, as TerminatingCapacity counts it: its
// resources, and its GPUs unless it shares one. A shared GPU is held by its share until the
// pod is removed: it never comes back whole through another's terminating pod.
HeldCapacity terminatingPart(const ResourceVector& req, const Pod& p) {
  return HeldCapacity{req, p.gpu_milli > 0 ? 0 : p.gpus, 0};
}

}  // namespace

void EngineState::takeOnNode(NodeId n, const ResourceVector& req, std::uint64_t pod_gpus,
                             std::int32_t gpu_milli) {
  NodeState& node = nodes[n];
  const std::uint64_t gpus = gpu_milli > 0 ? takeShare(node, pod_gpus, gpu_milli) : pod_gpus;
  TROUPE_CHECK((node.free_gpus & gpus) == gpus, "node {} GPUs {:x} taken twice (free {:x})",
               node.spec.name, gpus, node.free_gpus);
  // Only a node that had its run's most free GPUs can lower that most.
  const bool had_most = node_runs.holdsMost(n, node.free_gpus);
  node.free -= req;
  node.free_gpus &= ~gpus;
  if (had_most && gpus != 0)
    node_runs.lowered(n, nodes.size(), [&](NodeId m) { return nodes[m].free_gpus; });
  scan_tallies.capacity_log.push_back(n);
  ++versions.capacity;
  ++node.pods;
  if (node.usable()) usable_free -= req;
}

void EngineState::releaseOnNode(NodeId n, const ResourceVector& req, std::uint64_t pod_gpus,
                                std::int32_t gpu_milli) {
  NodeState& node = nodes[n];
  const std::uint64_t gpus = gpu_milli > 0 ? releaseShare(node, pod_gpus, gpu_milli) : pod_gpus;
  TROUPE_CHECK((node.free_gpus & gpus) == 0, "node {} GPUs {:x} released twice (free {:x})",
               node.spec.name, gpus, node.free_gpus);
  TROUPE_CHECK(node.pods > 0, "node {} releases a pod it does not hold", node.spec.name);
  node.free += req;
  node.free_gpus |= gpus & node.all_gpus;
  node_runs.raised(n, node.free_gpus);
  scan_tallies.capacity_log.push_back(n);
  ++versions.capacity;
  ++versions.release;
  --node.pods;
  if (node.usable()) usable_free += req;
}

const std::vector<std::pair<QueueId, double>>& EngineState::overShareQueues() {
  if (over_share_version == versions.alloc) return over_share;
  over_share_version = versions.alloc;
  over_share.clear();
  for (QueueId q : queues_by_rank) {
    const QueueState& qs = queues[static_cast<std::size_t>(q)];
    if (!qs.leaf() || qs.running.empty()) continue;
    const double share = dominantShare(qs.allocated, qs.fair_share);
    if (share > 1.0) over_share.emplace_back(q, share);
  }
  return over_share;
}

const std::vector<std::pair<QueueId, double>>& EngineState::overGuaranteeQueues() {
  if (over_guarantee_version == versions.alloc) return over_guarantee;
  over_guarantee_version = versions.alloc;
  over_guarantee.clear();
  for (QueueId q : queues_by_rank) {
    const QueueState& qs = queues[static_cast<std::size_t>(q)];
    if (!qs.leaf() || qs.running.empty()) continue;
    const double share = guaranteeShare(qs.allocated, qs.spec.guaranteed);
    if (share > 1.0) over_guarantee.emplace_back(q, share);
  }
  return over_guarantee;
}

void EngineState::addAllocated(QueueId q, const ResourceVector& amount) {
  ++versions.alloc;
  markDirty(q);
  while (q >= 0) {
    QueueState& qs = queues[static_cast<std::size_t>(q)];
    qs.allocated += amount;
    ++qs.allocation_changes;
    TROUPE_CHECK(!qs.allocated.anyNegative(), "queue {} allocation went negative", qs.spec.name);
    q = qs.parent;
  }
}

std::uint64_t EngineState::ancestorLimitChanges(QueueId q) const {
  std::uint64_t sum = 0;
  for (q = queues[static_cast<std::size_t>(q)].parent; q >= 0;
       q = queues[static_cast<std::size_t>(q)].parent) {
    const QueueState& qs = queues[static_cast<std::size_t>(q)];
    if (!(qs.spec.limit == ResourceVector::filled(ResourceVector::kUnlimited)))
      sum += qs.allocation_changes;
  }
  return sum;
}

KindId EngineState::kindOf(const MemoKey& key) {
  auto [it, added] = kind_ids.try_emplace(key, static_cast<KindId>(kinds.size()));
  if (added) kinds.push_back(key);
  return it->second;
}

GangWay EngineState::wayOf(std::string name, std::vector<PodSet> pod_sets,
                           const TopologyConstraint& topology) {
  GangWay w;
  w.name = std::move(name);
  w.pod_sets = std::move(pod_sets);
  w.classes.reserve(w.pod_sets.size());
  for (const auto& ps : w.pod_sets) {
    w.classes.push_back(classFor(*ps.shape));
    w.min_request += ps.shape->requests * ps.min_count;
    w.full_request += ps.shape->requests * ps.count;
  }
  if (w.pod_sets.size() == 1) {
    MemoKey k;
    k.cls = w.classes[0];
    k.mode = static_cast<std::int32_t>(topology.mode);
    k.level = topology.mode == TopologyMode::None ? -1 : levelIndex(topology.level);
    k.request = w.pod_sets[0].shape->requests;
    k.gpu_milli = w.pod_sets[0].shape->gpu_milli;
    w.kind = kindOf(k);
  }
  return w;
}

// The active way's pod sets and what is derived from them become the gang's. Its kind,
// classes and requests are the way's own, so every memo keyed by them (placements by kind,
// failed preemption searches by kind and queue) answers for the way tried. A gang tries its
// ways in turn at every visit, so the pod sets and classes move between the way and the
// gang rather than being copied: the active way's own are empty (podSetsOfWay).
void EngineState::useWay(GangId g, std::size_t w) {
  GangState& gs = gangs[g];
  TROUPE_CHECK(w < gs.ways.size(), "gang {} has no way {} (it has {})", gs.spec.name, w,
               gs.ways.size());
  TROUPE_CHECK(!gs.running, "gang {} changed its way while running", gs.spec.name);
  if (w == gs.way) return;
  if (gs.way < gs.ways.size()) {
    GangWay& active = gs.ways[gs.way];
    active.pod_sets.swap(gs.spec.pod_sets);
    active.classes.swap(gs.classes);
  }
  GangWay& way = gs.ways[w];
  gs.way = w;
  gs.spec.pod_sets.swap(way.pod_sets);
  gs.classes.swap(way.classes);
  gs.spec.variant = way.name;
  gs.kind = way.kind;
  gs.min_request = way.min_request;
  gs.full_request = way.full_request;
}

const std::vector<PodSet>& EngineState::podSetsOfWay(GangId g, std::size_t w) const {
  const GangState& gs = gangs[g];
  return w == gs.way ? gs.spec.pod_sets : gs.ways[w].pod_sets;
}

KindId EngineState::waysAskOf(const std::vector<GangWay>& ways) {
  std::vector<KindId> kinds;
  kinds.reserve(ways.size());
  for (const GangWay& w : ways) {
    if (w.kind == kNoKind || w.pod_sets[0].min_count != ways[0].pod_sets[0].min_count ||
        w.pod_sets[0].count != ways[0].pod_sets[0].count)
      return kNoKind;
    kinds.push_back(w.kind);
  }
  const auto id = static_cast<KindId>(-2 - static_cast<std::int64_t>(way_asks.size()));
  return way_asks.try_emplace(std::move(kinds), id).first->second;
}

GangSpec EngineState::givenSpec(GangId g) const {
  const GangState& gs = gangs[g];
  if (gs.ways.empty() || gs.way == 0) return gs.spec;
  GangSpec spec = gs.spec;
  spec.pod_sets = podSetsOfWay(g, 0);
  spec.variant = gs.ways[0].name;
  return spec;
}

// A gang with alternatives starts running on its active way: that way becomes its first,
// the others follow in order of preference (GangSpec::alternatives of a running gang), and
// it asks its queue for that way alone.
void EngineState::settleOnWay(GangId g) {
  GangState& gs = gangs[g];
  if (gs.ways.empty()) return;
  if (gs.way != 0) {
    std::rotate(gs.ways.begin(), gs.ways.begin() + static_cast<std::ptrdiff_t>(gs.way),
                gs.ways.begin() + static_cast<std::ptrdiff_t>(gs.way) + 1);
    gs.way = 0;
    gs.spec.alternatives.clear();
    for (std::size_t i = 1; i < gs.ways.size(); ++i)
      gs.spec.alternatives.push_back(GangVariant{gs.ways[i].name, podSetsOfWay(g, i)});
  }
  setDemand(g, gs.full_request);
}

void EngineState::setDemand(GangId g, const ResourceVector& demand) {
  GangState& gs = gangs[g];
  if (gs.demand == demand) return;
  if (gs.queue >= 0) {
    QueueState& q = queues[static_cast<std::size_t>(gs.queue)];
    q.demand -= gs.demand;
    q.demand += demand;
    markDirty(gs.queue);
    shares_dirty = true;
  }
  gs.demand = demand;
}

GangId EngineState::newGang(GangSpec spec) {
  GangId g;
  if (!free_gang_ids.empty()) {
    g = free_gang_ids.back();
    free_gang_ids.pop_back();
    gangs[g] = GangState{};
  } else {
    g = static_cast<GangId>(gangs.size());
    gangs.emplace_back();
  }
  GangState& gs = gangs[g];
  gs.spec = std::move(spec);
  gs.present = true;
  if (name_keys.size() <= g) name_keys.resize(g + 1);
  name_keys[g] = nameKey(gs.spec.name);
  if (gs.spec.alternatives.empty()) {
    GangWay only = wayOf(std::string(), std::move(gs.spec.pod_sets), gs.spec.topology);
    gs.spec.pod_sets = std::move(only.pod_sets);
    gs.classes = std::move(only.classes);
    gs.kind = only.kind;
    gs.min_request = only.min_request;
    gs.full_request = only.full_request;
  } else {
    gs.ways.reserve(gs.spec.alternatives.size() + 1);
    gs.ways.push_back(wayOf(gs.spec.variant, std::move(gs.spec.pod_sets), gs.spec.topology));
    gs.spec.pod_sets.clear();
    for (const GangVariant& v : gs.spec.alternatives)
      gs.ways.push_back(wayOf(v.name, v.pod_sets, gs.spec.topology));
    gs.ways_ask = waysAskOf(gs.ways);
    gs.way = gs.ways.size();  // none active yet
    useWay(g, 0);
  }
  gs.demand = gs.full_request;
  gs.counts.assign(gs.spec.pod_sets.size(), 0);
  gang_ids.emplace(gs.spec.name, g);
  noteChanged(g);
  return g;
}

void EngineState::attachToQueue(GangId g) {
  GangState& gs = gangs[g];
  auto it = queue_ids.find(gs.spec.queue);
  if (it == queue_ids.end() || !queues[static_cast<std::size_t>(it->second)].leaf()) {
    gs.queue = -1;
    auto [o, added] = orphans.try_emplace(gs.spec.queue, NameOrder{&gangs});
    o->second.insert(g);
    (void)added;
    return;
  }
  gs.queue = it->second;
  markDirty(gs.queue);
  QueueState& q = queues[static_cast<std::size_t>(gs.queue)];
  q.demand += gs.demand;
  if (gs.running) {
    q.running.insert(g);
    runningChanged(gs.queue);
    addAllocated(gs.queue, gs.held);
  } else {
    q.pending.insert(g);
    if (pending_observer != nullptr) pending_observer->pendingAdded(g);
  }
  shares_dirty = true;
}

void EngineState::detachFromQueue(GangId g) {
  GangState& gs = gangs[g];
  if (gs.queue < 0) {
    auto it = orphans.find(gs.spec.queue);
    if (it != orphans.end()) {
      it->second.erase(g);
      if (it->second.empty()) orphans.erase(it);
    }
    return;
  }
  markDirty(gs.queue);
  QueueState& q = queues[static_cast<std::size_t>(gs.queue)];
  q.demand -= gs.demand;
  if (gs.running) {
    q.running.erase(g);
    runningChanged(gs.queue);
    addAllocated(gs.queue, ResourceVector{} - gs.held);
  } else {
    q.pending.erase(g);
    if (pending_observer != nullptr) pending_observer->pendingRemoved(g);
  }
  gs.queue = -1;
  shares_dirty = true;
}

void EngineState::forgetOnNode(NodeId n, GangId g) {
  std::vector<GangId>& on = nodes[n].gangs;
  auto it = std::find(on.begin(), on.end(), g);
  TROUPE_CHECK(it != on.end(), "gang {} released a pod on node {} that it does not hold",
               gangName(g), nodes[n].spec.name);
  *it = on.back();
  on.pop_back();
}

void EngineState::startRunning(GangId g, std::vector<Pod> pods, Seconds now) {
  GangState& gs = gangs[g];
  TROUPE_CHECK(!gs.running, "gang {} started twice", gs.spec.name);
  const QueueId q = gs.queue;
  markDirty(q);
  if (q >= 0) {
    queues[static_cast<std::size_t>(q)].pending.erase(g);
    if (pending_observer != nullptr) pending_observer->pendingRemoved(g);
  }
  gs.running = true;
  settleOnWay(g);
  gs.start_time = now;
  gs.pods = std::move(pods);
  noteChanged(g);
  gs.counts.assign(gs.spec.pod_sets.size(), 0);
  gs.held = ResourceVector{};
  gs.terminating = 0;
  for (const Pod& p : gs.pods) {
    const ResourceVector& req = requestOf(g, p.pod_set);
    takeOnNode(p.node, req, p.gpus, p.gpu_milli);
    nodes[p.node].gangs.push_back(g);
    gs.held += req;
    ++gs.counts[static_cast<std::size_t>(p.pod_set)];
    if (p.terminating) {
      terminating.add(p.node, terminatingPart(req, p));
      ++gs.terminating;
    }
  }
  if (q >= 0) {
    queues[static_cast<std::size_t>(q)].running.insert(g);
    runningChanged(q);
    addAllocated(q, gs.held);
  }
  gs.why_reported = false;
}

void EngineState::stopRunning(GangId g) {
  GangState& gs = gangs[g];
  TROUPE_CHECK(gs.running, "gang {} stopped while not running", gs.spec.name);
  gs.started_on_reservation = false;
  for (const Pod& p : gs.pods) {
    releaseOnNode(p.node, requestOf(g, p.pod_set), p.gpus, p.gpu_milli);
    forgetOnNode(p.node, g);
    if (p.terminating) terminating.remove(p.node, terminatingPart(requestOf(g, p.pod_set), p));
  }
  gs.terminating = 0;
  const QueueId q = gs.queue;
  markDirty(q);
  if (q >= 0) {
    queues[static_cast<std::size_t>(q)].running.erase(g);
    runningChanged(q);
    addAllocated(q, ResourceVector{} - gs.held);
  }
  gs.running = false;
  gs.pods.clear();
  noteChanged(g);
  gs.counts.assign(gs.spec.pod_sets.size(), 0);
  gs.held = ResourceVector{};
  if (q >= 0) {
    queues[static_cast<std::size_t>(q)].pending.insert(g);
    if (pending_observer != nullptr) pending_observer->pendingAdded(g);
  }
}

void EngineState::removePods(GangId g, const std::vector<std::size_t>& pod_indexes) {
  GangState& gs = gangs[g];
  std::vector<std::uint8_t> drop(gs.pods.size(), 0);
  ResourceVector freed;
  for (std::size_t i : pod_indexes) {
    const Pod& p = gs.pods[i];
    const ResourceVector& req = requestOf(g, p.pod_set);
    releaseOnNode(p.node, req, p.gpus, p.gpu_milli);
    forgetOnNode(p.node, g);
    if (p.terminating) {
      terminating.remove(p.node, terminatingPart(req, p));
      --gs.terminating;
    }
    freed += req;
    --gs.counts[static_cast<std::size_t>(p.pod_set)];
    drop[i] = 1;
  }
  std::vector<Pod> kept;
  kept.reserve(gs.pods.size() - pod_indexes.size());
  for (std::size_t i = 0; i < gs.pods.size(); ++i)
    if (!drop[i]) kept.push_back(gs.pods[i]);
  gs.pods = std::move(kept);
  gs.held -= freed;
  noteChanged(g);
  runningChanged(gs.queue);
  if (gs.queue >= 0) addAllocated(gs.queue, ResourceVector{} - freed);
}

void EngineState::addPods(GangId g, const std::vector<Pod>& pods) {
  GangState& gs = gangs[g];
  ResourceVector added;
  for (const Pod& p : pods) {
    TROUPE_CHECK(!p.terminating, "gang {} grows by a terminating pod", gs.spec.name);
    const ResourceVector& req = requestOf(g, p.pod_set);
    takeOnNode(p.node, req, p.gpus, p.gpu_milli);
    nodes[p.node].gangs.push_back(g);
    added += req;
    ++gs.counts[static_cast<std::size_t>(p.pod_set)];
    gs.pods.push_back(p);
  }
  gs.held += added;
  noteChanged(g);
  runningChanged(gs.queue);
  if (gs.queue >= 0) addAllocated(gs.queue, added);
}

}  // namespace troupe::queueing
