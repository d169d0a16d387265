#include "queueing/engine.h"

#include <algorithm>
#include <bit>
#include <memory>

#include <fmt/format.h>

#include "common/check.h"
#include "queueing/answer_memo.h"
#include "queueing/cohort_quota_policy.h"
#include "queueing/cycle.h"
#include "queueing/discretized_las_policy.h"
#include "queueing/engine_state.h"
#include "queueing/fair_share_policy.h"
#include "queueing/fifo_policy.h"
#include "queueing/shortest_remaining_policy.h"
#include "queueing/state_reports.h"
#include "queueing/static_partition_policy.h"
#include "queueing/validation.h"

namespace troupe::queueing {
namespace {

std::uint64_t gpuMask(std::int64_t gpus) {
  if (gpus <= 0) return 0;
  if (gpus >= 64) return ~std::uint64_t{0};
  return (std::uint64_t{1} << gpus) - 1;
}

// The node's GPUs: indices 0 .. allocatable + held - 1, but for those pods the engine does
// not place hold (NodeSpec::held_gpus).
std::uint64_t nodeGpus(const NodeSpec& spec) {
  std::uint64_t held = 0;
  for (int i : spec.held_gpus) held |= std::uint64_t{1} << i;
  return gpuMask(spec.allocatable[kGpu] + std::popcount(held)) & ~held;
}

std::vector<std::uint64_t> groupMasks(const std::vector<std::vector<int>>& groups,
                                      std::uint64_t all) {
  std::vector<std::uint64_t> out;
  for (const auto& group : groups) {
    std::uint64_t m = 0;
    for (int i : group) m |= std::uint64_t{1} << i;
    out.push_back(m & all);
  }
  return out;
}

// Whether a running pod's share of `gpu_milli` thousandths of the GPU `gpu` (one bit) of
// `node` (id n) fits beside what the node's pods and the gang's `earlier` pods hold there:
// the GPU is free or shared, and the shares stay within the whole of it.
Status shareFits(const NodeState& node, NodeId n, const std::vector<Pod>& earlier,
                 std::uint64_t gpu, std::int32_t gpu_milli) {
  const auto i = static_cast<std::size_t>(std::countr_zero(gpu));
  std::int32_t used = node.gpu_shares.empty() ? 0 : node.gpu_shares[i];
  bool whole = used == 0 && (node.free_gpus & gpu) == 0;
  for (const Pod& p : earlier) {
    if (p.node != n || (p.gpus & gpu) == 0) continue;
    used += p.gpu_milli;
    whole = whole || p.gpu_milli == 0;
  }
  if (whole) return makeError(ErrorCode::Conflict, "", "GPU already held whole by another pod");
  if (used + gpu_milli > kGpuMilli)
    return makeError(ErrorCode::Conflict, "",
                     fmt::format("GPU {} shared past the whole: {} + {} thousandths > {}", i, used,
                                 gpu_milli, kGpuMilli));
  return {};
}

// The scheduling policy `st.policy.kind` names, reading `st`, which outlives it.
std::unique_ptr<SchedulingPolicy> makeSchedulingPolicy(const EngineState& st) {
  switch (st.policy.kind) {
    case PolicyKind::Fifo: return std::make_unique<FifoPolicy>(st);
    case PolicyKind::Troupe: return std::make_unique<FairSharePolicy>();
    case PolicyKind::YarnCapacity: return std::make_unique<StaticPartitionPolicy>();
    case PolicyKind::Kueue: return std::make_unique<CohortQuotaPolicy>(st);
    case PolicyKind::Tiresias: return std::make_unique<DiscretizedLasPolicy>(st);
    case PolicyKind::Srtf: return std::make_unique<ShortestRemainingPolicy>(st);
  }
  return std::make_unique<FairSharePolicy>();
}

}  // namespace

Engine::Engine(Policy policy)
    : state_(std::make_unique<EngineState>(std::move(policy))),
      memo_(std::make_unique<AnswerMemo>()),
      scheduling_(makeSchedulingPolicy(*state_)) {
  state_->pending_observer = scheduling_->pendingObserver();
}
Engine::~Engine() = default;
Engine::Engine(Engine&&) noexcept = default;
Engine& Engine::operator=(Engine&&) noexcept = default;

void Engine::reserve(std::size_t gangs, std::size_t nodes) {
  EngineState& st = *state_;
  st.gangs.reserve(gangs);
  st.name_keys.reserve(gangs);
  st.gang_ids.reserve(gangs);
  st.nodes.reserve(nodes);
  st.node_ids.reserve(nodes);
}

Result<Engine> Engine::fromSnapshot(const Snapshot& snapshot, Policy policy) {
  Engine engine(std::move(policy));
  // Room for arrivals too: a table of 100,000 gangs that grows later is moved whole, in
  // the middle of one incremental cycle (40 ms at that size).
  const std::size_t gangs = snapshot.pending.size() + snapshot.running.size();
  engine.reserve(gangs + gangs / 2, snapshot.nodes.size());
  for (const auto& n : snapshot.nodes)
    if (auto s = engine.upsertNode(n); !s) return s.error();
  // Parents before children, whatever order the snapshot lists them in.
  std::vector<const QueueSpec*> left;
  for (const auto& q : snapshot.queues) left.push_back(&q);
  while (!left.empty()) {
    std::vector<const QueueSpec*> later;
    for (const QueueSpec* q : left) {
      if (!q->parent.empty() && !engine.state_->queue_ids.contains(q->parent)) {
        later.push_back(q);
        continue;
      }
      if (auto s = engine.upsertQueue(*q); !s) return s.error();
    }
    if (later.size() == left.size())
      return makeError(ErrorCode::Invalid, fmt::format("queues[{}].parent", later[0]->name),
                       fmt::format("Not found: \"{}\"", later[0]->parent));
    left = std::move(later);
  }
  for (const auto& r : snapshot.running)
    if (auto s = engine.addRunning(r); !s) return s.error();
  for (const auto& g : snapshot.pending)
    if (auto s = engine.submit(g); !s) return s.error();
  return engine;
}

Status Engine::upsertNode(NodeSpec spec) {
  if (auto s = validateNode(spec); !s) return s;
  EngineState& st = *state_;
  const std::uint64_t all = nodeGpus(spec);
  auto it = st.node_ids.find(spec.name);
  if (it == st.node_ids.end()) {
    NodeState node;
    node.free = spec.allocatable;
    node.all_gpus = all;
    node.free_gpus = all;
    node.gpu_groups =
        GpuGroups::of(groupMasks(spec.nvlink_islands, all), groupMasks(spec.numa_nodes, all));
    node.spec = std::move(spec);
    const auto id = static_cast<NodeId>(st.nodes.size());
    st.node_ids.emplace(node.spec.name, id);
    st.nodes.push_back(std::move(node));
  } else {
    NodeState& node = st.nodes[it->second];
    const ResourceVector held = node.spec.allocatable - node.free;
    // The GPUs its pods hold, read from the pods: one may hold a GPU the old spec did not
    // count as the node's (held_gpus), and keeps it under the new one.
    std::uint64_t held_gpus = 0;
    for (GangId g : node.gangs)
      for (const Pod& p : st.gangs[g].pods)
        if (p.node == it->second) held_gpus |= p.gpus;
    node.free = spec.allocatable - held;
    node.all_gpus = all;
    node.free_gpus = all & ~held_gpus;
    node.gpu_groups =
        GpuGroups::of(groupMasks(spec.nvlink_islands, all), groupMasks(spec.numa_nodes, all));
    node.spec = std::move(spec);
  }
  st.nodes_dirty = true;
  return {};
}

Status Engine::removeNode(const std::string& name) {
  EngineState& st = *state_;
  auto it = st.node_ids.find(name);
  if (it == st.node_ids.end())
    return makeError(ErrorCode::NotFound, "node.name", fmt::format("node \"{}\" not found", name));
  NodeState& node = st.nodes[it->second];
  if (node.pods > 0)
    return makeError(ErrorCode::Conflict, "node.name",
                     fmt::format("node \"{}\" still runs {} pods", name, node.pods));
  node.present = false;
  node.spec.labels.clear();
  st.node_ids.erase(it);
  st.nodes_dirty = true;
  return {};
}

Status Engine::upsertQueue(QueueSpec spec) {
  if (auto s = validateQueue(spec); !s) return s;
  EngineState& st = *state_;
  QueueId parent = -1;
  if (!spec.parent.empty()) {
    auto p = st.queue_ids.find(spec.parent);
    if (p == st.queue_ids.end())
      return makeError(ErrorCode::Invalid, fmt::format("queues[{}].parent", spec.name),
                       fmt::format("Not found: \"{}\"", spec.parent));
    parent = p->second;
    const QueueState& pq = st.queues[static_cast<std::size_t>(parent)];
    if (!pq.pending.empty() || !pq.running.empty())
      return makeError(
          ErrorCode::Conflict, fmt::format("queues[{}].parent", spec.name),
          fmt::format("queue \"{}\" holds gangs; only leaf queues hold gangs", spec.parent));
  }
  auto it = st.queue_ids.find(spec.name);
  if (it != st.queue_ids.end()) {
    QueueState& q = st.queues[static_cast<std::size_t>(it->second)];
    if (q.parent != parent)
      return makeError(ErrorCode::Invalid, fmt::format("queues[{}].parent", spec.name),
                       "Invalid value: the parent of a queue cannot change");
    q.spec = std::move(spec);
    q.limited_slots = limitedSlots(q.spec);
    st.runningChanged(it->second);  // minRuntimeSeconds decides its reclaim candidates
    st.shares_dirty = true;
    // Preemption rules (reclaim, withinQueue, minRuntimeSeconds) may have moved.
    memo_->queueSpecChanged();
    for (auto& other : st.queues) other.dirty = true;  // limits and rules may have moved
    return {};
  }
  // A new queue: refuse cycles through a parent chain (impossible, parents exist first).
  const auto id = static_cast<QueueId>(st.queues.size());
  QueueState q{.spec = std::move(spec),
               .present = true,
               .parent = parent,
               .children = {},
               .rank = 0,
               .allocated = {},
               .demand = {},
               .fair_share = {},
               .pending = PendingList(&st.gangs),
               .running = std::set<GangId, NameOrder>(NameOrder{&st.gangs})};
  q.limited_slots = limitedSlots(q.spec);
  st.queue_ids.emplace(q.spec.name, id);
  const std::string name = q.spec.name;
  st.queues.push_back(std::move(q));
  if (parent >= 0) st.queues[static_cast<std::size_t>(parent)].children.push_back(id);
  st.queues_dirty = true;
  // Gangs that named this queue before it existed.
  auto o = st.orphans.find(name);
  if (o != st.orphans.end()) {
    std::vector<GangId> waiting(o->second.begin(), o->second.end());
    st.orphans.erase(o);
    for (GangId g : waiting) st.attachToQueue(g);
  }
  return {};
}

Status Engine::removeQueue(const std::string& name) {
  EngineState& st = *state_;
  auto it = st.queue_ids.find(name);
  if (it == st.queue_ids.end())
    return makeError(ErrorCode::NotFound, "queue.name",
                     fmt::format("queue \"{}\" not found", name));
  QueueState& q = st.queues[static_cast<std::size_t>(it->second)];
  for (QueueId c : q.children)
    if (st.queues[static_cast<std::size_t>(c)].present)
      return makeError(ErrorCode::Conflict, "queue.name",
                       fmt::format("queue \"{}\" has child queues", name));
  if (!q.pending.empty() || !q.running.empty())
    return makeError(ErrorCode::Conflict, "queue.name",
                     fmt::format("queue \"{}\" still holds gangs", name));
  q.present = false;
  if (q.parent >= 0) {
    auto& siblings = st.queues[static_cast<std::size_t>(q.parent)].children;
    std::erase(siblings, it->second);
  }
  st.queue_ids.erase(it);
  st.queues_dirty = true;
  return {};
}

Status Engine::submit(GangSpec gang) {
  if (auto s = validateGang(gang, state_->policy); !s) return s;
  EngineState& st = *state_;
  if (st.gang_ids.contains(gang.name))
    return makeError(ErrorCode::AlreadyExists, fmt::format("gangs[{}]", gang.name),
                     "a gang with this name already exists");
  const GangId g = st.newGang(std::move(gang));
  st.attachToQueue(g);
  return {};
}

Status Engine::addRunning(RunningGang gang) {
  if (auto s = validateGang(gang.spec, state_->policy); !s) return s;
  EngineState& st = *state_;
  // Field paths are built only for an error: loading a cluster adds every running gang.
  auto base = [&] { return fmt::format("running[{}]", gang.spec.name); };
  if (st.gang_ids.contains(gang.spec.name))
    return makeError(ErrorCode::AlreadyExists, base(), "a gang with this name already exists");
  std::vector<Pod> pods;
  std::vector<std::int32_t> counts(gang.spec.pod_sets.size(), 0);
  for (std::size_t i = 0; i < gang.pods.size(); ++i) {
    const PodPlacement& p = gang.pods[i];
    auto path = [&] { return fmt::format("{}.pods[{}]", base(), i); };
    if (p.pod_set < 0 || static_cast<std::size_t>(p.pod_set) >= gang.spec.pod_sets.size())
      return makeError(ErrorCode::Invalid, path() + ".podSet", "Invalid value: no such pod set");
    auto n = st.node_ids.find(p.node);
    if (n == st.node_ids.end())
      return makeError(ErrorCode::Invalid, path() + ".node",
                       fmt::format("Not found: node \"{}\"", p.node));
    const NodeState& node = st.nodes[n->second];
    std::uint64_t mask = 0;
    for (int gpu : p.gpus) {
      if (gpu < 0 || gpu >= 64 || !((node.all_gpus >> gpu) & 1))
        return makeError(ErrorCode::Invalid, path() + ".gpus",
                         fmt::format("Invalid value: {}: the node has no such GPU", gpu));
      mask |= std::uint64_t{1} << gpu;
    }
    const PodShape& shape = *gang.spec.pod_sets[static_cast<std::size_t>(p.pod_set)].shape;
    const std::int64_t want_gpus = shape.gpu_milli > 0 ? 1 : shape.requests[kGpu];
    if (std::popcount(mask) != want_gpus)
      return makeError(ErrorCode::Invalid, path() + ".gpus",
                       fmt::format("Invalid value: {} GPUs listed, the pod requests {}",
                                   std::popcount(mask), want_gpus));
    if (shape.gpu_milli > 0) {
      if (auto s = shareFits(node, n->second, pods, mask, shape.gpu_milli); !s)
        return makeError(ErrorCode::Conflict, path() + ".gpus", s.error().message);
    } else {
      // GPUs the gang's earlier pods on this node hold (gangs span few pods per node).
      std::uint64_t used = 0;
      for (const Pod& earlier : pods)
        if (earlier.node == n->second) used |= earlier.gpus;
      if ((node.free_gpus & mask) != mask || (used & mask) != 0)
        return makeError(ErrorCode::Conflict, path() + ".gpus", "GPU already held by another pod");
    }
    ++counts[static_cast<std::size_t>(p.pod_set)];
    pods.push_back(Pod{p.pod_set, n->second, mask, p.terminating, shape.gpu_milli});
  }
  for (std::size_t i = 0; i < counts.size(); ++i)
    if (counts[i] > gang.spec.pod_sets[i].count)
      return makeError(ErrorCode::Invalid, fmt::format("{}.podSets[{}]", base(), i),
                       fmt::format("Invalid value: {} pods run, count is {}", counts[i],
                                   gang.spec.pod_sets[i].count));
  const GangId g = st.newGang(std::move(gang.spec));
  st.attachToQueue(g);
  st.startRunning(g, std::move(pods), gang.start_time);
  return {};
}

Status Engine::remove(const std::string& name) {
  EngineState& st = *state_;
  auto it = st.gang_ids.find(name);
  if (it == st.gang_ids.end())
    return makeError(ErrorCode::NotFound, "gang.name", fmt::format("gang \"{}\" not found", name));
  const GangId g = it->second;
  if (st.gangs[g].running) st.stopRunning(g);
  st.detachFromQueue(g);
  for (auto& r : st.reservations)
    if (r.gang == g) r.gang = kNoGang;
  for (auto& n : st.nodes)
    if (n.reserved_for == g) n.reserved_for = kNoGang;
  if (st.track_changes) st.removed_gangs.push_back(name);
  st.gang_ids.erase(it);
  st.gangs[g] = GangState{};
  st.free_gang_ids.push_back(g);
  return {};
}

Decisions Engine::schedule(Seconds now) { return runCycle(*state_, *memo_, *scheduling_, now); }

bool Engine::isPending(const std::string& gang) const {
  auto it = state_->gang_ids.find(gang);
  return it != state_->gang_ids.end() && !state_->gangs[it->second].running;
}

bool Engine::isRunning(const std::string& gang) const {
  auto it = state_->gang_ids.find(gang);
  return it != state_->gang_ids.end() && state_->gangs[it->second].running;
}

std::optional<RunningGang> Engine::running(const std::string& gang) const {
  auto it = state_->gang_ids.find(gang);
  if (it == state_->gang_ids.end() || !state_->gangs[it->second].running) return std::nullopt;
  const GangState& gs = state_->gangs[it->second];
  RunningGang out{.spec = gs.spec, .start_time = gs.start_time, .pods = {}};
  for (const Pod& p : gs.pods) out.pods.push_back(toPlacement(*state_, p));
  return out;
}

std::optional<PendingExplanation> Engine::explanation(const std::string& gang) const {
  auto it = state_->gang_ids.find(gang);
  if (it == state_->gang_ids.end() || state_->gangs[it->second].running) return std::nullopt;
  return explain(*state_, it->second);
}

std::optional<PendingReason> Engine::pendingReason(const std::string& gang) const {
  auto it = state_->gang_ids.find(gang);
  if (it == state_->gang_ids.end() || state_->gangs[it->second].running) return std::nullopt;
  return state_->gangs[it->second].why.reason;
}

std::optional<QueueStatus> Engine::queueStatus(const std::string& queue) const {
  auto it = state_->queue_ids.find(queue);
  if (it == state_->queue_ids.end()) return std::nullopt;
  return statusOf(*state_, it->second);
}

bool Engine::holds(const NodeSpec& node) const {
  auto it = state_->node_ids.find(node.name);
  return it != state_->node_ids.end() && state_->nodes[it->second].spec == node;
}

bool Engine::holds(const QueueSpec& queue) const {
  auto it = state_->queue_ids.find(queue.name);
  return it != state_->queue_ids.end() &&
         state_->queues[static_cast<std::size_t>(it->second)].spec == queue;
}

bool Engine::holdsPending(const GangSpec& gang) const {
  auto it = state_->gang_ids.find(gang.name);
  if (it == state_->gang_ids.end()) return false;
  const GangState& gs = state_->gangs[it->second];
  if (gs.running) return false;
  return gs.way == 0 ? gs.spec == gang : state_->givenSpec(it->second) == gang;
}

bool Engine::holdsRunning(const RunningGang& gang, bool compare_start) const {
  const EngineState& st = *state_;
  auto it = st.gang_ids.find(gang.spec.name);
  if (it == st.gang_ids.end()) return false;
  const GangState& gs = st.gangs[it->second];
  if (!gs.running || (compare_start && gs.start_time != gang.start_time) ||
      gs.pods.size() != gang.pods.size() || !(gs.spec == gang.spec))
    return false;
  for (std::size_t i = 0; i < gs.pods.size(); ++i) {
    const Pod& held = gs.pods[i];
    const PodPlacement& given = gang.pods[i];
    if (held.pod_set != given.pod_set || held.terminating != given.terminating ||
        st.nodes[held.node].spec.name != given.node)
      return false;
    std::uint64_t mask = 0;
    for (int gpu : given.gpus) {
      if (gpu < 0 || gpu >= 64) return false;
      mask |= std::uint64_t{1} << gpu;
    }
    if (mask != held.gpus || static_cast<std::size_t>(std::popcount(mask)) != given.gpus.size())
      return false;
  }
  return true;
}

std::vector<std::string> Engine::changedGangs() const {
  const EngineState& st = *state_;
  std::vector<std::string> out = st.removed_gangs;
  for (const GangId g : st.changed_gangs)
    if (st.gangs[g].present) out.push_back(st.gangs[g].spec.name);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void Engine::trackChanges() { state_->track_changes = true; }

void Engine::forgetChanges() {
  state_->changed_gangs.clear();
  state_->removed_gangs.clear();
}

std::size_t Engine::nodeCount() const { return state_->node_ids.size(); }

std::vector<std::string> Engine::nodeNames() const {
  std::vector<std::string> out;
  out.reserve(state_->node_ids.size());
  for (const auto& [name, id] : state_->node_ids) out.push_back(name);
  std::sort(out.begin(), out.end());
  return out;
}

std::size_t Engine::pendingCount() const {
  std::size_t n = 0;
  for (const auto& g : state_->gangs) n += g.present && !g.running;
  return n;
}

std::size_t Engine::runningCount() const {
  std::size_t n = 0;
  for (const auto& g : state_->gangs) n += g.present && g.running;
  return n;
}

const Policy& Engine::policy() const { return state_->policy; }

Result<SnapshotCycle> scheduleSnapshot(const Snapshot& snapshot, const Policy& policy) {
  auto engine = Engine::fromSnapshot(snapshot, policy);
  if (!engine) return engine.error();
  SnapshotCycle out{.decisions = engine->schedule(snapshot.now), .pending = {}};
  out.pending.reserve(out.decisions.explained.size());
  for (const auto& gang : out.decisions.explained) {
    auto explanation = engine->explanation(gang);
    // A cycle names only gangs it leaves pending, and each of those has an explanation.
    TROUPE_CHECK(explanation.has_value(), "gang {} was explained but has no explanation", gang);
    out.pending.push_back(std::move(*explanation));
  }
  return out;
}

}  // namespace troupe::queueing
