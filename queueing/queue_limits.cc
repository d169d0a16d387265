#include "queueing/queue_limits.h"

#include <algorithm>
#include <array>
#include <bit>

#include "queueing/engine_state.h"
#include "queueing/kept_guarantee.h"

namespace troupe::queueing {
namespace {

// One level of a gang's path as the quota rule reads it.
struct Level {
  QueueId queue = kClusterLevel;
  ResourceVector holds;
  ResourceVector kept;
  ResourceVector limit;
  // The cluster level is checked only in the resources queues keep something of (or in
  // all of them on an empty cluster); a queue's in every resource it limits.
  std::array<bool, kMaxResources> checked{};
};

// A queue off the gang's path with a victim in its subtree: what it keeps once the
// victims' usage is removed.
struct Beside {
  QueueId queue;
  int depth;
  ResourceVector removed;
  ResourceVector children_delta;  // how much more its children keep
};

int depthOf(const EngineState& st, QueueId x) {
  int d = 0;
  for (; x >= 0; x = st.queues[static_cast<std::size_t>(x)].parent) ++d;
  return d;
}

// Calls visit(level) for q, each of its ancestors, then the cluster, until visit returns
// true. Usage as the state holds it less `freed`, or none at all when `empty`.
template <class Visit>
void walkLevels(const EngineState& st, QueueId q, const FreedByQueue& freed, bool empty,
                const Visit& visit) {
  KeptGuarantees& kept = *st.kept;
  kept.refresh(st);
  const bool keeps = kept.any();
  std::vector<QueueId> path;
  for (QueueId x = q; x >= 0; x = st.queues[static_cast<std::size_t>(x)].parent) path.push_back(x);
  auto onPath = [&](QueueId x) -> int {
    for (std::size_t i = 0; i < path.size(); ++i)
      if (path[i] == x) return static_cast<int>(i);
    return -1;
  };
  std::vector<ResourceVector> removed(path.size());
  // How much more the children of each path level (the last entry: the top-level
  // queues) keep once the victims are gone.
  std::vector<ResourceVector> children_delta(path.size() + 1);
  std::vector<Beside> beside;
  auto besideOf = [&](QueueId x) -> Beside& {
    for (Beside& b : beside)
      if (b.queue == x) return b;
    return beside.emplace_back(Beside{x, depthOf(st, x), {}, {}});
  };
  if (!empty) {
    for (const auto& [v, amount] : freed) {
      for (QueueId x = v; x >= 0; x = st.queues[static_cast<std::size_t>(x)].parent) {
        if (const int i = onPath(x); i >= 0)
          removed[static_cast<std::size_t>(i)] += amount;
        else if (keeps)
          besideOf(x).removed += amount;
      }
    }
    // What the queues beside the path keep, bottom up: a queue that loses usage may keep
    // more of its guarantee (never more than it lost).
    std::sort(beside.begin(), beside.end(),
              [](const Beside& a, const Beside& b) { return a.depth > b.depth; });
    for (std::size_t k = 0; k < beside.size(); ++k) {
      const Beside b = beside[k];  // a copy: besideOf() below may add to `beside`
      const QueueState& bs = st.queues[static_cast<std::size_t>(b.queue)];
      const ResourceVector now =
          ResourceVector::max(KeptGuarantees::own(bs.spec, bs.allocated - b.removed),
                              kept.childrenKeep(b.queue, false) + b.children_delta);
      const ResourceVector delta = now - kept.keeps(b.queue, false);
      if (bs.parent < 0)
        children_delta.back() += delta;
      else if (const int i = onPath(bs.parent); i >= 0)
        children_delta[static_cast<std::size_t>(i)] += delta;
      else
        besideOf(bs.parent).children_delta += delta;  // shallower: after this one
    }
  }
  Level level;
  ResourceVector off;  // kept inside the current level, beside the path
  for (std::size_t j = 0; j < path.size(); ++j) {
    const QueueState& xs = st.queues[static_cast<std::size_t>(path[j])];
    if (keeps) {
      off += kept.childrenKeep(path[j], empty) + children_delta[j];
      if (j > 0) off -= kept.keeps(path[j - 1], empty);
    }
    level.queue = path[j];
    level.holds = empty ? ResourceVector{} : xs.allocated - removed[j];
    level.kept = off;
    level.limit = xs.spec.limit;
    for (std::size_t r = 0; r < kMaxResources; ++r)
      level.checked[r] = xs.spec.limit[r] < ResourceVector::kUnlimited;
    if (visit(level)) return;
  }
  if (keeps) {
    off += kept.childrenKeep(kClusterLevel, empty) + children_delta.back();
    if (!path.empty()) off -= kept.keeps(path.back(), empty);
  }
  level.queue = kClusterLevel;
  level.holds = empty ? ResourceVector{} : st.usable_capacity - st.usable_free;
  level.kept = off;
  level.limit = st.usable_capacity;
  for (std::size_t r = 0; r < kMaxResources; ++r) level.checked[r] = empty || off[r] > 0;
  visit(level);
}

// Whether queue x is `v` or one of its ancestors.
bool holdsSubtreeOf(const EngineState& st, QueueId x, QueueId v) {
  for (; v >= 0; v = st.queues[static_cast<std::size_t>(v)].parent)
    if (v == x) return true;
  return false;
}

// firstBreach() when no queue keeps anything unlent: each level's own numbers less what
// `freed` takes off its subtree, against its limit, with no vector built. Every gang a
// cycle tries asks this, and a preemption search asks it for every victim it releases.
std::optional<QuotaBreach> plainBreach(const EngineState& st, QueueId q,
                                       const ResourceVector& request, const FreedByQueue& freed,
                                       bool empty) {
  std::uint32_t asked = 0;
  for (std::size_t r = 0; r < kMaxResources; ++r)
    if (request[r] > 0) asked |= 1u << r;
  for (QueueId x = q; x >= 0; x = st.queues[static_cast<std::size_t>(x)].parent) {
    const QueueState& xs = st.queues[static_cast<std::size_t>(x)];
    const std::uint32_t checked = asked & xs.limited_slots;
    if (checked == 0) continue;
    ResourceVector removed;
    if (!empty)
      for (const auto& [v, amount] : freed)
        if (holdsSubtreeOf(st, x, v)) removed += amount;
    for (std::uint32_t bits = checked; bits != 0; bits &= bits - 1) {
      const auto r = static_cast<std::size_t>(std::countr_zero(bits));
      const std::int64_t holds = empty ? 0 : xs.allocated[r] - removed[r];
      if (holds + request[r] > xs.spec.limit[r])
        return QuotaBreach{x, r, holds, 0, xs.spec.limit[r], request[r]};
    }
  }
  if (empty)
    for (std::uint32_t bits = asked; bits != 0; bits &= bits - 1) {
      const auto r = static_cast<std::size_t>(std::countr_zero(bits));
      if (request[r] > st.usable_capacity[r])
        return QuotaBreach{kClusterLevel, r, 0, 0, st.usable_capacity[r], request[r]};
    }
  return std::nullopt;
}

std::optional<QuotaBreach> firstBreach(const EngineState& st, QueueId q,
                                       const ResourceVector& request, const FreedByQueue& freed,
                                       bool empty) {
  st.kept->refresh(st);
  if (!st.kept->any()) return plainBreach(st, q, request, freed, empty);
  std::optional<QuotaBreach> out;
  walkLevels(st, q, freed, empty, [&](const Level& l) {
    for (std::size_t r = 0; r < kMaxResources; ++r) {
      if (!l.checked[r] || request[r] <= 0) continue;
      if (l.holds[r] + l.kept[r] + request[r] <= l.limit[r]) continue;
      out = QuotaBreach{l.queue, r, l.holds[r], l.kept[r], l.limit[r], request[r]};
      return true;
    }
    return false;
  });
  return out;
}

}  // namespace

std::optional<QuotaBreach> quotaBreach(const EngineState& st, QueueId q,
                                       const ResourceVector& request, const FreedByQueue& freed) {
  return firstBreach(st, q, request, freed, false);
}

std::optional<QuotaBreach> quotaBreachWhenEmpty(const EngineState& st, QueueId q,
                                                const ResourceVector& request) {
  return firstBreach(st, q, request, {}, true);
}

TerminatingUsage terminatingUsage(const EngineState& st, QueueId at) {
  TerminatingUsage out;
  auto under = [&](QueueId x) {
    if (at < 0) return true;
    for (; x >= 0; x = st.queues[static_cast<std::size_t>(x)].parent)
      if (x == at) return true;
    return false;
  };
  for (QueueId x : st.queues_by_rank) {
    const QueueState& xs = st.queues[static_cast<std::size_t>(x)];
    if (!xs.leaf()) continue;
    ResourceVector held;
    const bool counted = under(x);
    for (GangId v : xs.running) {
      const GangState& vs = st.gangs[v];
      if (vs.terminating == 0) continue;
      for (const Pod& p : vs.pods)
        if (p.terminating) held += st.requestOf(v, p.pod_set);
      if (counted) out.gangs.push_back(v);
    }
    if (!held.isZero()) out.by_queue.emplace_back(x, held);
  }
  std::sort(out.gangs.begin(), out.gangs.end(),
            [&](GangId a, GangId b) { return st.gangName(a) < st.gangName(b); });
  return out;
}

QuotaBreach quotaAt(const EngineState& st, QueueId q, const ResourceVector& request, QueueId at,
                    std::size_t r, bool empty) {
  QuotaBreach out{at, r, 0, 0, 0, request[r]};
  walkLevels(st, q, {}, empty, [&](const Level& l) {
    if (l.queue != at) return false;
    out.holds = l.holds[r];
    out.kept = l.kept[r];
    out.limit = l.limit[r];
    return true;
  });
  return out;
}

}  // namespace troupe::queueing
