#include "queueing/preemption.h"

#include <algorithm>
#include <bit>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "queueing/candidate_pool.h"
#include "queueing/fair_share.h"
#include "queueing/gang_placer.h"
#include "queueing/statement.h"
#include "queueing/terminating_wait.h"

namespace troupe::queueing {
namespace {

// For a gang of one pod shape: how many of its pods fit on each node and in each domain
// of its required level (or in total), kept up to date as victims' pods are released, so
// the search asks "does it fit now?" without placing the gang again. Exact: the placer
// puts a one-shape gang wherever these counts say it fits.
class FitCounter {
 public:
  FitCounter(EngineState& st, GangId g, std::int32_t pod_set, std::int64_t want)
      : st_(st),
        g_(g),
        req_(st.requestOf(g, pod_set)),
        want_(want),
        allows_(st.eligibility(st.gangs[g].classes[static_cast<std::size_t>(pod_set)]).allows) {
    const TopologyConstraint& t = st.gangs[g].spec.topology;
    if (t.mode == TopologyMode::Required) {
      level_ = st.levelIndex(t.level);
      domain_sum_.assign(st.domains[static_cast<std::size_t>(level_)].names.size(), 0);
    }
    per_node_.assign(st.nodes.size(), 0);
    // Nodes of runs with too few free GPUs hold 0 pods, as per_node_ already says.
    const auto& eligible =
        st.eligibility(st.gangs[g].classes[static_cast<std::size_t>(pod_set)]).eligible;
    for (std::size_t i = st.skipFullChunks(eligible, 0, req_[kGpu]); i < eligible.size();
         i = st.skipFullChunks(eligible, i + 1, req_[kGpu]))
      refresh(eligible[i]);
  }

  void refresh(NodeId n) {
    const NodeState& node = st_.nodes[n];
    std::int64_t k = 0;
    const bool blocked = n >= allows_.size() || !allows_[n] || !node.usable() ||
                         (node.reserved_for != kNoGang && node.reserved_for != g_);
    if (!blocked) {
      k = node.free.copiesOf(req_, want_);
      if (req_[kGpu] > 0) k = std::min<std::int64_t>(k, std::popcount(node.free_gpus) / req_[kGpu]);
      k = std::max<std::int64_t>(k, 0);
    }
    const std::int64_t delta = k - per_node_[n];
    if (delta == 0) return;
    per_node_[n] = k;
    total_ += delta;
    if (level_ >= 0) {
      const std::int32_t d = node.domain[static_cast<std::size_t>(level_)];
      if (d >= 0) domain_sum_[static_cast<std::size_t>(d)] += delta;
    }
  }

  bool fits() const {
    if (level_ < 0) return total_ >= want_;
    return std::any_of(domain_sum_.begin(), domain_sum_.end(),
                       [&](std::int64_t s) { return s >= want_; });
  }

 private:
  EngineState& st_;
  GangId g_;
  ResourceVector req_;
  std::int64_t want_;
  const std::vector<std::uint8_t>& allows_;
  std::int32_t level_ = -1;
  std::vector<std::int64_t> per_node_;
  std::vector<std::int64_t> domain_sum_;
  std::int64_t total_ = 0;
};

class Search {
 public:
  Search(EngineState& st, GangId g, const std::vector<std::int32_t>& counts, Seconds now,
         CandidatePool* pool)
      : st_(st),
        g_(g),
        counts_(counts),
        now_(now),
        pool_(pool),
        gs_(st.gangs[g]),
        q_(gs_.queue),
        qs_(st.queues[static_cast<std::size_t>(q_)]) {
    for (std::size_t i = 0; i < counts.size(); ++i)
      request_ += gs_.spec.pod_sets[i].shape->requests * counts[i];
    share_before_ = dominantShare(qs_.allocated, qs_.fair_share);
    g_before_ = guaranteeShare(qs_.allocated, qs_.spec.guaranteed);
    share_after_ = dominantShare(qs_.allocated + request_, qs_.fair_share);
  }

  PreemptionPlan run() {
    PreemptionPlan plan = search();
    plan.protected_until = protected_until_;
    plan.searched = !candidates_.empty();
    if (plan.failure == PreemptFailureKind::Exhausted) {
      plan.sources = sources_;
      std::sort(plan.sources.begin(), plan.sources.end());
    }
    return plan;
  }

 private:
  // A run of candidates_ being merged: its next candidate and its end.
  struct Head {
    std::size_t at;
    std::size_t end;
  };

  PreemptionPlan search() {
    PreemptionPlan plan;
    collect();
    if (candidates_.empty()) {
      if (protected_ > 0) {
        plan.reason = PendingReason::WaitingForReclaim;
        plan.detail = fmt::format(
            "{} running gangs it could preempt are protected (preemptible: false or "
            "minRuntimeSeconds not reached)",
            protected_);
      } else if (admitted_now_ > 0) {
        plan.reason = PendingReason::WaitingForReclaim;
        plan.detail = fmt::format(
            "{} running gangs it could preempt were admitted this cycle; they may be "
            "preempted from the next one",
            admitted_now_);
      } else if (share_after_ > 1.0 && over_elsewhere_ > 0) {
        plan.reason = PendingReason::OverFairShare;
        plan.failure = PreemptFailureKind::NoCandidates;
      } else {
        plan.reason = PendingReason::NoPlacement;
      }
      return plan;
    }
    startMerge();

    // Capacity terminating pods hold is counted on, never chosen: it comes back by itself,
    // so the victims need only make up the rest (no other waiting gang of the cycle
    // counted on it already).
    Statement stmt(st_);
    releaseUnclaimedTerminating(st_, stmt);
    base_ = stmt.checkpoint();
    // Greedy: release candidates cheapest first until the gang fits.
    std::int32_t only_set = -1;
    for (std::size_t i = 0; i < counts_.size(); ++i)
      if (counts_[i] > 0) only_set = only_set == -1 ? static_cast<std::int32_t>(i) : -2;
    if (only_set >= 0)
      counter_.emplace(st_, g_, only_set, counts_[static_cast<std::size_t>(only_set)]);
    std::vector<std::size_t> chosen;
    constexpr int kMaxAttempts = 64;
    int attempts = 0;
    bool fits = false;
    for (std::size_t i = 0; i < candidates_.size() && attempts < kMaxAttempts; ++i) {
      releaseCandidate(stmt, nth(i));
      chosen.push_back(i);
      if (!mayFit()) continue;
      ++attempts;
      if (placeGang(st_, g_, counts_, options()).ok) {
        fits = true;
        break;
      }
    }
    if (!fits) {
      plan.reason = PendingReason::NoPlacement;
      plan.detail = "preempting every gang it may preempt would still not make room";
      // Every candidate released, and the exact counter said no each time: no placement
      // attempt was cut short. Gangs skipped as admitted this cycle become candidates in
      // the next, so such a failure is not kept.
      if (counter_ && attempts == 0 && chosen.size() == candidates_.size() && admitted_now_ == 0)
        plan.failure = PreemptFailureKind::Exhausted;
      return plan;
    }
    // Minimise: drop victims, most expensive first, while the gang still fits.
    for (std::size_t k = chosen.size(); k-- > 0;) {
      reset(stmt);
      for (std::size_t j = 0; j < chosen.size(); ++j)
        if (j != k) releaseCandidate(stmt, nth(chosen[j]));
      const bool still =
          counter_ ? counter_->fits() : mayFit() && placeGang(st_, g_, counts_, options()).ok;
      if (still) chosen.erase(chosen.begin() + static_cast<std::ptrdiff_t>(k));
    }
    reset(stmt);
    for (std::size_t j : chosen) releaseCandidate(stmt, nth(j));
    Placement final_place = placeGang(st_, g_, counts_, options());
    if (!final_place.ok) {  // cannot happen: the last successful check used this set
      plan.reason = PendingReason::NoPlacement;
      return plan;
    }
    if (std::string broken = checkRules(chosen); !broken.empty()) {
      plan.reason = PendingReason::WaitingForReclaim;
      plan.detail = std::move(broken);
      return plan;
    }
    plan.ok = true;
    plan.pods = std::move(final_place.pods);
    for (std::size_t j : chosen) plan.victims.push_back(nth(j).victim);
    return plan;
  }

  // Orders run heads for a max-heap that keeps the cheapest on top.
  struct LaterHead {
    const Search* search;
    bool operator()(const Head& a, const Head& b) const {
      return cheaper(search->st_, *search->candidates_[b.at], *search->candidates_[a.at]);
    }
  };
  LaterHead laterHead() const { return LaterHead{this}; }

  // Cheapest first, ordered lazily: the greedy pass usually needs only a few of the
  // candidates. Each run of candidates_ is sorted already (a source's offer is sorted
  // when the pool builds it; owned_ is sorted here), so a heap of the runs' heads merges
  // them: a search costs the runs and the candidates it pops, not every candidate.
  void startMerge() {
    if (owned_begin_ < candidates_.size()) {
      std::sort(candidates_.begin() + static_cast<std::ptrdiff_t>(owned_begin_), candidates_.end(),
                [&](const Candidate* a, const Candidate* b) { return cheaper(st_, *a, *b); });
      runs_.emplace_back(owned_begin_, candidates_.size());
    }
    heads_.clear();
    for (const auto& [begin, end] : runs_)
      if (begin < end) heads_.push_back(Head{begin, end});
    std::make_heap(heads_.begin(), heads_.end(), laterHead());
  }

  // The i-th cheapest candidate.
  const Candidate& nth(std::size_t i) {
    while (order_.size() <= i) {
      std::pop_heap(heads_.begin(), heads_.end(), laterHead());
      Head& h = heads_.back();
      order_.push_back(candidates_[h.at]);
      if (++h.at < h.end)
        std::push_heap(heads_.begin(), heads_.end(), laterHead());
      else
        heads_.pop_back();
    }
    return *order_[i];
  }

  PlaceOptions options() const {
    PlaceOptions o;
    o.self = g_;
    return o;
  }

  // True when some pod of `v` sits on a node the preemptor's pods may use.
  bool usefulTo(const GangState& v) {
    for (std::int32_t cls : gs_.classes) {
      const ConstraintClass& c = st_.eligibility(cls);
      for (const Pod& p : v.pods)
        if (p.node < c.allows.size() && c.allows[p.node]) return true;
    }
    return false;
  }

  void addCandidates(GangId v, QueueId vq, PreemptionReason reason) {
    const GangState& vs = st_.gangs[v];
    if (!usefulTo(vs)) return;
    // Evicting or shrinking a gang the same cycle admitted would undo that cycle's own
    // decision: the caller would be told to start it and to stop it at once.
    if (vs.admitted_cycle == st_.cycle) {
      ++admitted_now_;
      return;
    }
    appendCandidates(st_, v, vq, reason, owned_);
  }

  void collect() {
    if (qs_.spec.within_queue == WithinQueuePreemption::LowerPriority) {
      for (GangId v : qs_.running) {
        const GangState& vs = st_.gangs[v];
        if (vs.spec.priority >= gs_.spec.priority || !offersCapacity(vs)) continue;
        if (!runLongEnough(vs, qs_, now_, protected_until_)) {
          ++protected_;
          continue;
        }
        addCandidates(v, q_, PreemptionReason::WithinQueue);
      }
    }
    // Reclaim (only while the preemptor's queue ends within its fair share), then taking
    // back a guarantee.
    for (const auto& [vq, share] : st_.overShareQueues())
      if (vq != q_) ++over_elsewhere_;
    sources_ = reclaimSources(st_, q_, request_);
    for (QueueId vq : sources_) reclaimFrom(vq);
    // owned_ is complete: point at its candidates too, as the last run (sorted later).
    owned_begin_ = candidates_.size();
    for (const Candidate& c : owned_) candidates_.push_back(&c);
  }

  void reclaimFrom(QueueId vq) {
    const QueueState& vqs = st_.queues[static_cast<std::size_t>(vq)];
    if (pool_ == nullptr) {
      for (GangId v : vqs.running) {
        if (!offersCapacity(st_.gangs[v])) continue;
        if (!runLongEnough(st_.gangs[v], vqs, now_, protected_until_)) {
          ++protected_;
          continue;
        }
        addCandidates(v, vq, PreemptionReason::Reclaim);
      }
      return;
    }
    // The same, from the candidates the queue offers every search of this cycle.
    const SourceCandidates& offer = pool_->of(st_, vq, now_);
    const std::size_t begin = candidates_.size();
    protected_ += offer.protected_count;
    protected_until_ = std::min(protected_until_, offer.protected_until);
    const bool every = mayUseEveryUsableNode();
    for (const auto& [v, on_usable] : offer.admitted_now)
      if (every ? on_usable != 0 : usefulTo(st_.gangs[v])) ++admitted_now_;
    for (std::size_t i = 0; i < offer.candidates.size(); ++i) {
      const Candidate& c = offer.candidates[i];
      if (every ? offer.on_usable[i] != 0 : usefulTo(st_.gangs[c.victim.gang]))
        candidates_.push_back(&c);
    }
    // The offer is sorted, and a filter keeps its order: one run.
    runs_.emplace_back(begin, candidates_.size());
  }

  // True when some pod set of the preemptor may run on every usable node: then a victim
  // is useful exactly when it has a pod on a usable node.
  bool mayUseEveryUsableNode() const {
    return std::any_of(gs_.classes.begin(), gs_.classes.end(), [&](std::int32_t cls) {
      return st_.classes[static_cast<std::size_t>(cls)].allows_every_usable;
    });
  }

  // A cheap necessary condition (exact for one-shape gangs) before a placement attempt.
  bool mayFit() const {
    if (counter_) return counter_->fits();
    return request_.fitsIn(st_.usable_free);
  }

  void reset(Statement& stmt) {
    stmt.rollbackTo(base_);
    released_whole_.clear();
    released_shrink_.clear();
    if (!counter_) return;
    std::sort(touched_.begin(), touched_.end());
    touched_.erase(std::unique(touched_.begin(), touched_.end()), touched_.end());
    for (NodeId n : touched_) counter_->refresh(n);
  }

  void touch(NodeId n) {
    if (!counter_) return;
    touched_.push_back(n);
    counter_->refresh(n);
  }

  void releaseCandidate(Statement& stmt, const Candidate& c) {
    const GangState& vs = st_.gangs[c.victim.gang];
    if (c.victim.whole) {
      // A whole eviction after its own shrink candidate releases only what is left.
      for (std::size_t i = 0; i < vs.pods.size(); ++i)
        if (!surplusReleased(c.victim.gang, i)) {
          stmt.release(c.victim.gang, vs.pods[i]);
          touch(vs.pods[i].node);
        }
      released_whole_.push_back(c.victim.gang);
    } else {
      for (std::size_t i : c.victim.pods) {
        stmt.release(c.victim.gang, vs.pods[i]);
        touch(vs.pods[i].node);
      }
      released_shrink_.push_back(&c.victim);
    }
  }

  // During one release pass, was pod i of gang v already released by its shrink?
  bool surplusReleased(GangId v, std::size_t i) const {
    for (const Victim* s : released_shrink_)
      if (s->gang == v && std::find(s->pods.begin(), s->pods.end(), i) != s->pods.end())
        return true;
    return false;
  }

  // The fairness rules, checked on the final set (a shrink and an eviction of the same
  // gang count once, as the eviction).
  std::string checkRules(std::vector<std::size_t>& chosen) {
    // An eviction makes the same gang's shrink redundant.
    std::vector<std::size_t> kept;
    for (std::size_t j : chosen) {
      const Candidate& c = nth(j);
      if (!c.victim.whole) {
        bool evicted = false;
        for (std::size_t k : chosen)
          evicted = evicted || (nth(k).victim.whole && nth(k).victim.gang == c.victim.gang);
        if (evicted) continue;
      }
      kept.push_back(j);
    }
    chosen = kept;
    std::vector<std::pair<QueueId, ResourceVector>> freed;  // by queue
    for (std::size_t j : chosen) {
      const Candidate& c = nth(j);
      const ResourceVector amount = c.victim.whole ? st_.gangs[c.victim.gang].held : c.frees;
      auto it = std::find_if(freed.begin(), freed.end(),
                             [&](const auto& f) { return f.first == c.queue; });
      if (it == freed.end())
        freed.emplace_back(c.queue, amount);
      else
        it->second += amount;
    }
    ResourceVector own_after = qs_.allocated + request_;
    for (const auto& [vq, amount] : freed)
      if (vq == q_) own_after -= amount;
    const double q_after = dominantShare(own_after, qs_.fair_share);
    // Capacity the preemptor's queue is guaranteed is its own: taking it back from a
    // queue that borrowed it may leave that queue further below its fair share than the
    // preemptor's ends (gangs are indivisible), and still no loop can follow, since the
    // preemptor's queue ends within its fair share and nobody reclaims from such a queue.
    const double g_after = guaranteeShare(own_after, qs_.spec.guaranteed);
    const bool within_guarantee = g_after <= 1.0 + 1e-12;
    for (const auto& [vq, amount] : freed) {
      const QueueState& v = st_.queues[static_cast<std::size_t>(vq)];
      if (vq == q_) {
        if (std::max(q_after, 1.0) > std::max(share_before_, 1.0) + 1e-12)
          return fmt::format(
              "preempting lower priority gangs would take queue {} from {:.3f} to "
              "{:.3f} of its fair share",
              qs_.spec.name, share_before_, q_after);
        continue;
      }
      const double v_before = dominantShare(v.allocated, v.fair_share);
      const double v_after = dominantShare(v.allocated - amount, v.fair_share);
      // A queue within its fair share loses only borrowed work, and only to one taking
      // back its guarantee: ending within it, or above it (gangs are indivisible) by less
      // than the victim's queue was above its own.
      const double v_g_before = guaranteeShare(v.allocated, v.spec.guaranteed);
      const bool borrowed = v_g_before > 1.0;
      if (v_before <= 1.0 &&
          !(borrowed &&
            (within_guarantee || mayTakeBackPastGuarantee(g_before_, g_after, v_g_before))))
        return fmt::format(
            "queue {} holds no more than its fair share and queue {} would end above its "
            "guarantee",
            v.spec.name, qs_.spec.name);
      // The preemptor may also end above a victim's queue that keeps all of its own
      // guarantee: gangs are indivisible, so the victim's queue may drop further below its
      // fair share than the preemptor's ends, yet holding its whole guarantee it has
      // nothing to take back, and the preemptor's queue, within its fair share, is no
      // reclaim victim. (Not a queue guaranteed nothing: evicting its 8-GPU gang for a
      // 1-GPU job would strand 7 GPUs that neither queue could then use.)
      const bool keeps_guarantee =
          !v.spec.guaranteed.isZero() &&
          guaranteeShare(v.allocated - amount, v.spec.guaranteed) >= 1.0 - 1e-12;
      if (q_after > 1.0 + 1e-12 ||
          (q_after > v_after + 1e-12 && !within_guarantee && !keeps_guarantee) ||
          !(v_after < v_before))
        return fmt::format(
            "reclaiming from queue {} would leave it at {:.3f} of its fair share{} "
            "and queue {} at {:.3f}: the preemptor must not end above the victim",
            v.spec.name, v_after,
            v.spec.guaranteed.isZero() || keeps_guarantee ? "" : " and below its guarantee",
            qs_.spec.name, q_after);
    }
    return "";
  }

  EngineState& st_;
  GangId g_;
  const std::vector<std::int32_t>& counts_;
  Seconds now_;
  CandidatePool* pool_;  // null: collect afresh
  const GangState& gs_;
  QueueId q_;
  const QueueState& qs_;
  ResourceVector request_;
  double share_before_ = 0;
  double g_before_ = 0;  // the preemptor's queue's guarantee share before the gang
  double share_after_ = 0;
  // Candidates collected by this search (within its queue, or all without a pool).
  std::vector<Candidate> owned_;
  // Every candidate (in owned_ or in the pool, which no search changes while it runs), in
  // runs each sorted cheapest first: one per source queue's offer, then owned_'s.
  std::vector<const Candidate*> candidates_;
  std::vector<std::pair<std::size_t, std::size_t>> runs_;  // [begin, end) in candidates_
  std::size_t owned_begin_ = 0;
  // The merge: the next candidate of each run not yet taken, and what it took, in order.
  std::vector<Head> heads_;
  std::vector<const Candidate*> order_;
  std::optional<FitCounter> counter_;
  std::size_t base_ = 0;  // the statement's checkpoint after the terminating capacity
  std::vector<NodeId> touched_;
  std::size_t protected_ = 0;
  Seconds protected_until_ = kNever;
  std::size_t over_elsewhere_ = 0;  // other queues above their fair share
  std::vector<QueueId> sources_;    // reclaimSources() of this search
  std::size_t admitted_now_ = 0;    // useful victims skipped: admitted this cycle
  std::vector<GangId> released_whole_;
  std::vector<const Victim*> released_shrink_;
};

}  // namespace

std::vector<QueueId> reclaimSources(EngineState& st, QueueId q, const ResourceVector& request) {
  const QueueState& qs = st.queues[static_cast<std::size_t>(q)];
  std::vector<QueueId> out;
  if (!qs.spec.reclaim) return out;
  const double after = dominantShare(qs.allocated + request, qs.fair_share);
  if (after > 1.0) return out;
  for (const auto& [vq, share] : st.overShareQueues())
    if (vq != q && share > after) out.push_back(vq);
  // Taking back its guarantee: the queue ends within its fair share, so it may take
  // borrowed work from queues above their guarantee even when none is above its fair
  // share (free capacity fragmented across nodes). Ending above its own guarantee (gangs
  // are indivisible), it takes only from queues further above theirs than it ends.
  const double g_before = guaranteeShare(qs.allocated, qs.spec.guaranteed);
  const double g_after = guaranteeShare(qs.allocated + request, qs.spec.guaranteed);
  if (g_after > 1.0 && !(g_before < 1.0)) return out;
  // Both lists are sorted by queue rank (name), so a merge skips the queues already taken.
  const std::size_t reclaimed = out.size();
  std::size_t next = 0;
  for (const auto& [vq, share] : st.overGuaranteeQueues()) {
    const auto rank = st.queues[static_cast<std::size_t>(vq)].rank;
    while (next < reclaimed && st.queues[static_cast<std::size_t>(out[next])].rank < rank) ++next;
    if (vq == q || (next < reclaimed && out[next] == vq)) continue;
    if (g_after > 1.0 && !mayTakeBackPastGuarantee(g_before, g_after, share)) continue;
    out.push_back(vq);
  }
  return out;
}

PreemptionPlan planPreemption(EngineState& st, GangId g, const std::vector<std::int32_t>& counts,
                              Seconds now, CandidatePool* pool) {
  Search search(st, g, counts, now, pool);
  return search.run();
}

}  // namespace troupe::queueing
