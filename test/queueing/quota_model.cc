#include "test/queueing/quota_model.h"

#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "queueing/fair_share.h"

namespace troupe::queueing::model {
namespace {

bool leaf(const World& w, int q) {
  return std::none_of(w.queues.begin(), w.queues.end(),
                      [&](const Queue& x) { return x.parent == q; });
}

bool under(const World& w, int a, int x) {
  for (; x >= 0; x = w.queues[static_cast<std::size_t>(x)].parent)
    if (x == a) return true;
  return false;
}

// What the running gangs not taken hold in a's subtree (nothing when `empty`).
ResourceVector holds(const World& w, int a, const std::vector<bool>& taken, bool empty) {
  ResourceVector sum;
  if (empty) return sum;
  for (std::size_t i = 0; i < w.running.size(); ++i)
    if (!taken[i] && under(w, a, w.running[i].queue)) sum += w.running[i].total();
  return sum;
}

ResourceVector holdsAll(const World& w, const std::vector<bool>& taken, bool empty) {
  ResourceVector sum;
  if (empty) return sum;
  for (std::size_t i = 0; i < w.running.size(); ++i)
    if (!taken[i]) sum += w.running[i].total();
  return sum;
}

// What queue c and its subtree keep unlent of their guarantees (kept_guarantee.h says the
// same in words): the larger of what c keeps itself and what its children keep together.
ResourceVector keeps(const World& w, int c, const std::vector<bool>& taken, bool empty) {
  const Queue& q = w.queues[static_cast<std::size_t>(c)];
  const ResourceVector used = holds(w, c, taken, empty);
  ResourceVector own;
  for (std::size_t r = 0; r < kMaxResources; ++r)
    if (q.lending_limit[r] < q.guaranteed[r])
      own[r] = std::max<std::int64_t>(0, q.guaranteed[r] - q.lending_limit[r] - used[r]);
  ResourceVector children;
  for (std::size_t d = 0; d < w.queues.size(); ++d)
    if (w.queues[d].parent == c) children += keeps(w, static_cast<int>(d), taken, empty);
  return ResourceVector::max(own, children);
}

std::vector<int> pathOf(const World& w, int q) {
  std::vector<int> path;
  for (; q >= 0; q = w.queues[static_cast<std::size_t>(q)].parent) path.push_back(q);
  return path;
}

// The first level of the pending gang's path, from its queue up and the cluster last,
// whose limit it passes with `taken` removed; kNowhere when none.
int firstBreach(const World& w, const std::vector<bool>& taken, bool empty) {
  const ResourceVector ask = w.pending.total();
  const std::vector<int> path = pathOf(w, w.pending.queue);
  auto onPath = [&](int x) { return std::find(path.begin(), path.end(), x) != path.end(); };
  // What the queues beside the path inside level j keep: children of path[0..j] not on it.
  auto keptInside = [&](std::size_t j) {
    ResourceVector sum;
    for (std::size_t i = 0; i <= j && i < path.size(); ++i)
      for (std::size_t c = 0; c < w.queues.size(); ++c)
        if (w.queues[c].parent == path[i] && !onPath(static_cast<int>(c)))
          sum += keeps(w, static_cast<int>(c), taken, empty);
    return sum;
  };
  for (std::size_t j = 0; j < path.size(); ++j) {
    const Queue& a = w.queues[static_cast<std::size_t>(path[j])];
    const ResourceVector h = holds(w, path[j], taken, empty);
    const ResourceVector k = keptInside(j);
    for (std::size_t r = 0; r < kMaxResources; ++r)
      if (a.limit[r] < ResourceVector::kUnlimited && ask[r] > 0 &&
          h[r] + k[r] + ask[r] > a.limit[r])
        return path[j];
  }
  ResourceVector k = keptInside(path.size());
  for (std::size_t c = 0; c < w.queues.size(); ++c)
    if (w.queues[c].parent < 0 && !onPath(static_cast<int>(c)))
      k += keeps(w, static_cast<int>(c), taken, empty);
  ResourceVector capacity;
  for (const ResourceVector& n : w.nodes) capacity += n;
  const ResourceVector h = holdsAll(w, taken, empty);
  for (std::size_t r = 0; r < kMaxResources; ++r)
    if ((empty || k[r] > 0) && ask[r] > 0 && h[r] + k[r] + ask[r] > capacity[r]) return kCluster;
  return kNowhere;
}

// Whether the pending gang's pods fit the nodes' free capacity with `taken` gone (all of
// it when `empty`): identical pods, so counting how many fit on each node is exact.
bool fits(const World& w, const std::vector<bool>& taken, bool empty) {
  const ResourceVector& pod = w.pending.pod;
  std::int64_t room = 0;
  for (std::size_t n = 0; n < w.nodes.size(); ++n) {
    ResourceVector free = w.nodes[n];
    if (!empty)
      for (std::size_t i = 0; i < w.running.size(); ++i)
        if (!taken[i])
          for (int at : w.running[i].nodes)
            if (at == static_cast<int>(n)) free -= w.running[i].pod;
    std::int64_t k = 1 << 20;
    for (std::size_t r = 0; r < kMaxResources; ++r)
      if (pod[r] > 0) k = std::min(k, std::max<std::int64_t>(0, free[r]) / pod[r]);
    room += k;
  }
  return room >= w.pending.pods;
}

// Per queue: what it holds (its subtree), and its fair share (docs/fair-share.md; the
// fair-share computation has tests of its own).
struct Shares {
  std::vector<ResourceVector> allocated;
  std::vector<ResourceVector> fair;
};

Shares shares(const World& w) {
  Shares s;
  std::vector<FairShareQueue> in;
  std::vector<bool> none(w.running.size(), false);
  ResourceVector capacity;
  for (const ResourceVector& n : w.nodes) capacity += n;
  for (std::size_t q = 0; q < w.queues.size(); ++q) {
    ResourceVector demand;
    for (const Gang& g : w.running)
      if (g.queue == static_cast<int>(q)) demand += g.total();
    if (w.pending.queue == static_cast<int>(q)) demand += w.pending.total();
    const Queue& x = w.queues[q];
    in.push_back(FairShareQueue{.parent = x.parent,
                                .guaranteed = x.guaranteed,
                                .limit = x.limit,
                                .lending_limit = x.lending_limit,
                                .over_quota_weight = x.weight,
                                .priority = 0,
                                .demand = demand});
    s.allocated.push_back(holds(w, static_cast<int>(q), none, false));
  }
  s.fair = computeFairShares(in, capacity);
  return s;
}

// May running gang v be a victim of the pending gang at all (docs/scheduling.md, "Who may
// be a victim")?
bool candidate(const World& w, const Shares& s, std::size_t v) {
  const Gang& g = w.pending;
  const Gang& vg = w.running[v];
  if (!vg.preemptible) return false;
  const auto q = static_cast<std::size_t>(g.queue);
  const Queue& qs = w.queues[q];
  if (vg.queue == g.queue) return qs.within_queue && vg.priority < g.priority;
  if (!qs.reclaim || !leaf(w, vg.queue)) return false;
  const auto vq = static_cast<std::size_t>(vg.queue);
  const ResourceVector ask = g.total();
  const double after = dominantShare(s.allocated[q] + ask, s.fair[q]);
  if (after > 1.0) return false;
  // Reclaim: a queue above its fair share, further above it than the preemptor ends.
  const double v_share = dominantShare(s.allocated[vq], s.fair[vq]);
  if (v_share > 1.0 && v_share > after) return true;
  // Taking back a guarantee from a queue above its own.
  const double g_before = guaranteeShare(s.allocated[q], qs.guaranteed);
  const double g_after = guaranteeShare(s.allocated[q] + ask, qs.guaranteed);
  const double v_g = guaranteeShare(s.allocated[vq], w.queues[vq].guaranteed);
  if (v_g <= 1.0) return false;
  return g_after <= 1.0 || (g_before < 1.0 && g_after < v_g);
}

// The rules checked on the final victim set (docs/scheduling.md, "The rule that makes it
// loop-free", rules 1 to 4, and the within-queue rule); "" when they hold.
std::string brokenRule(const World& w, const Shares& s, const std::vector<std::size_t>& victims) {
  const auto q = static_cast<std::size_t>(w.pending.queue);
  const Queue& qs = w.queues[q];
  std::vector<std::pair<std::size_t, ResourceVector>> freed;
  for (std::size_t v : victims) {
    const auto vq = static_cast<std::size_t>(w.running[v].queue);
    auto it =
        std::find_if(freed.begin(), freed.end(), [&](const auto& f) { return f.first == vq; });
    if (it == freed.end())
      freed.emplace_back(vq, w.running[v].total());
    else
      it->second += w.running[v].total();
  }
  ResourceVector own_after = s.allocated[q] + w.pending.total();
  for (const auto& [vq, amount] : freed)
    if (vq == q) own_after -= amount;
  const double share_before = dominantShare(s.allocated[q], s.fair[q]);
  const double q_after = dominantShare(own_after, s.fair[q]);
  const double g_before = guaranteeShare(s.allocated[q], qs.guaranteed);
  const double g_after = guaranteeShare(own_after, qs.guaranteed);
  const bool within_guarantee = g_after <= 1.0 + 1e-12;
  for (const auto& [vq, amount] : freed) {
    const Queue& v = w.queues[vq];
    if (vq == q) {
      if (std::max(q_after, 1.0) > std::max(share_before, 1.0) + 1e-12)
        return "within the queue: it would end further above its fair share";
      continue;
    }
    const double v_before = dominantShare(s.allocated[vq], s.fair[vq]);
    const double v_after = dominantShare(s.allocated[vq] - amount, s.fair[vq]);
    const double v_g_before = guaranteeShare(s.allocated[vq], v.guaranteed);
    // Rule 4: a victim's queue within its fair share loses only borrowed work, to a queue
    // taking back its guarantee.
    if (v_before <= 1.0 &&
        !(v_g_before > 1.0 && (within_guarantee || (g_before < 1.0 && g_after < v_g_before))))
      return fmt::format("rule 4: {} is within its fair share", v.name);
    const bool keeps_guarantee =
        !v.guaranteed.isZero() &&
        guaranteeShare(s.allocated[vq] - amount, v.guaranteed) >= 1.0 - 1e-12;
    if (q_after > 1.0 + 1e-12) return "rule 1: the preemptor's queue ends above its fair share";
    if (q_after > v_after + 1e-12 && !within_guarantee && !keeps_guarantee)
      return fmt::format("rules 2 and 3: it would end above {}", v.name);
    if (!(v_after < v_before)) return fmt::format("rule 2: {} loses no share", v.name);
  }
  return "";
}

}  // namespace

std::string check(const World& w, const std::vector<std::size_t>& victims) {
  const Shares s = shares(w);
  std::vector<bool> taken(w.running.size(), false);
  for (std::size_t v : victims) {
    if (!candidate(w, s, v)) return fmt::format("{} may not be a victim", w.running[v].name);
    taken[v] = true;
  }
  if (const int b = firstBreach(w, taken, false); b != kNowhere)
    return b == kCluster
               ? std::string("over the cluster's unlent capacity")
               : fmt::format("over the limit of {}", w.queues[static_cast<std::size_t>(b)].name);
  if (!fits(w, taken, false)) return "no placement";
  // Every victim is needed: without it the gang would pass a limit or find no room. A set
  // is never padded to satisfy the fairness rules.
  for (std::size_t v : victims) {
    taken[v] = false;
    if (firstBreach(w, taken, false) == kNowhere && fits(w, taken, false))
      return fmt::format("{} is not needed", w.running[v].name);
    taken[v] = true;
  }
  return brokenRule(w, s, victims);
}

Answer admit(const World& w) {
  Answer a;
  const std::vector<bool> none(w.running.size(), false);
  const int never = firstBreach(w, none, true);
  if (never != kNowhere || !fits(w, none, true)) {
    a.inadmissible = true;
    a.binding = never;
    return a;
  }
  a.binding = firstBreach(w, none, false);
  // Every set of victims, fewest first.
  const std::size_t n = w.running.size();
  for (std::size_t size = 0; size <= n && !a.admissible; ++size) {
    std::vector<bool> pick(n, false);
    std::fill(pick.begin(), pick.begin() + static_cast<std::ptrdiff_t>(size), true);
    do {
      std::vector<std::size_t> victims;
      for (std::size_t i = 0; i < n; ++i)
        if (pick[i]) victims.push_back(i);
      if (check(w, victims).empty()) {
        a.admissible = true;
        a.min_victims = size;
        a.one_minimum = victims;
        break;
      }
    } while (std::prev_permutation(pick.begin(), pick.end()));
  }
  return a;
}

Snapshot toSnapshot(const World& w, Seconds now) {
  Snapshot s;
  s.now = now;
  for (std::size_t n = 0; n < w.nodes.size(); ++n) {
    NodeSpec node;
    node.name = "n" + std::to_string(n);
    node.allocatable = w.nodes[n];
    s.nodes.push_back(node);
  }
  for (const Queue& q : w.queues) {
    QueueSpec spec;
    spec.name = q.name;
    if (q.parent >= 0) spec.parent = w.queues[static_cast<std::size_t>(q.parent)].name;
    spec.guaranteed = q.guaranteed;
    spec.limit = q.limit;
    spec.lending_limit = q.lending_limit;
    spec.over_quota_weight = q.weight;
    spec.reclaim = q.reclaim;
    spec.within_queue =
        q.within_queue ? WithinQueuePreemption::LowerPriority : WithinQueuePreemption::Never;
    s.queues.push_back(spec);
  }
  auto specOf = [&](const Gang& g, std::int32_t pods) {
    GangSpec spec;
    spec.name = g.name;
    spec.queue = w.queues[static_cast<std::size_t>(g.queue)].name;
    spec.priority = g.priority;
    spec.preemptible = g.preemptible;
    auto shape = std::make_shared<PodShape>();
    shape->requests = g.pod;
    spec.pod_sets.push_back(PodSet{shape, pods, pods});
    return spec;
  };
  std::vector<int> next_gpu(w.nodes.size(), 0);
  for (const Gang& g : w.running) {
    RunningGang r;
    r.spec = specOf(g, static_cast<std::int32_t>(g.nodes.size()));
    for (int n : g.nodes) {
      PodPlacement p;
      p.node = "n" + std::to_string(n);
      for (std::int64_t i = 0; i < g.pod[kGpu]; ++i)
        p.gpus.push_back(next_gpu[static_cast<std::size_t>(n)]++);
      r.pods.push_back(p);
    }
    s.running.push_back(std::move(r));
  }
  s.pending.push_back(specOf(w.pending, w.pending.pods));
  return s;
}

}  // namespace troupe::queueing::model
