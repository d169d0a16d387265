#include "queueing/preemption.h"

#include <algorithm>
#include <bit>
#include <deque>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "queueing/candidate_pool.h"
#include "queueing/fair_share.h"
#include "queueing/gang_placer.h"
#include "queueing/preemption_rules.h"
#include "queueing/queue_limits.h"
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
        gpu_milli_(st.gangs[g].spec.pod_sets[static_cast<std::size_t>(pod_set)].shape->gpu_milli),
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
    for (std::size_t i = st.node_runs.skipFullChunks(eligible, 0, req_[kGpu]); i < eligible.size();
         i = st.node_runs.skipFullChunks(eligible, i + 1, req_[kGpu]))
      refresh(eligible[i]);
  }

  void refresh(NodeId n) {
    const NodeState& node = st_.nodes[n];
    std::int64_t k = 0;
    const bool blocked = n >= allows_.size() || !allows_[n] || !node.usable() ||
                         (node.reserved_for != kNoGang && node.reserved_for != g_);
    if (!blocked) {
      k = podsFitOn(node.free, node.free_gpus, node.gpu_shares, req_, gpu_milli_, want_);
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
  std::int32_t gpu_milli_;
  std::int64_t want_;
  const std::vector<std::uint8_t>& allows_;
  std::int32_t level_ = -1;
  std::vector<std::int64_t> per_node_;
  std::vector<std::int64_t> domain_sum_;
  std::int64_t total_ = 0;
};

// What a retried search leaves out (Search::search): whole queues, single gangs, each
// kept sorted so that equal exclusions compare equal.
struct Exclusions {
  std::vector<QueueId> queues;
  std::vector<GangId> gangs;
  Exclusions plusQueue(QueueId q) const {
    Exclusions e = *this;
    e.queues.insert(std::upper_bound(e.queues.begin(), e.queues.end(), q), q);
    return e;
  }
  Exclusions plusGang(GangId g) const {
    Exclusions e = *this;
    e.gangs.insert(std::upper_bound(e.gangs.begin(), e.gangs.end(), g), g);
    return e;
  }
  friend bool operator==(const Exclusions&, const Exclusions&) = default;
  bool excludes(const Candidate& c) const {
    return std::find(queues.begin(), queues.end(), c.queue) != queues.end() ||
           std::find(gangs.begin(), gangs.end(), c.victim.gang) != gangs.end();
  }
};

class Search {
 public:
  Search(EngineState& st, GangId g, const std::vector<std::int32_t>& counts, Seconds now,
         CandidatePool* pool, std::size_t* retries)
      : retries_(retries),
        st_(st),
        g_(g),
        counts_(counts),
        now_(now),
        pool_(pool),
        gs_(st.gangs[g]),
        q_(gs_.queue),
        qs_(st.queues[static_cast<std::size_t>(q_)]) {
    for (std::size_t i = 0; i < counts.size(); ++i)
      request_ += gs_.spec.pod_sets[i].shape->requests * counts[i];
    // The quota check counts on what terminating pods hold, as placement counts on
    // their capacity: it is on its way back.
    if (!st.terminating.empty()) base_freed_ = terminatingUsage(st, kClusterLevel).by_queue;
    freed_ = base_freed_;
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
            "{} running gangs it could preempt are protected (preemptible: false, "
            "minRuntimeSeconds not reached, or started on a reservation beyond their "
            "queue's guarantee)",
            protected_);
      } else if (admitted_now_ > 0) {
        plan.reason = PendingReason::WaitingForReclaim;
        plan.detail = fmt::format(
            "{} running gangs it could preempt were admitted this cycle; they may be "
            "preempted from the next one",
            admitted_now_);
      } else if (overFairShareToReclaim(st_, q_, request_)) {
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
    std::int32_t only_set = -1;
    for (std::size_t i = 0; i < counts_.size(); ++i)
      if (counts_[i] > 0) only_set = only_set == -1 ? static_cast<std::int32_t>(i) : -2;
    if (only_set >= 0)
      counter_.emplace(st_, g_, only_set, counts_[static_cast<std::size_t>(only_set)]);
    // A set that breaks a rule of the final check says nothing of other sets: the search
    // runs again without part of what broke it, breadth first over what it leaves out (a
    // victim queue within its fair share: all of its gangs; a victim queue that would end
    // below the preemptor's, or the preemptor's own queue taken too far: one of that
    // queue's victims, the largest first, or all of the preemptor's own when no set of
    // them can do: checkRules), kMaxSearches runs in all and no more than the cycle's
    // budget allows, and the first broken rule is reported if no set keeps them.
    constexpr std::size_t kMaxSearches = 16;
    std::deque<Exclusions> tries{Exclusions{}};
    std::vector<Exclusions> tried;
    std::string first_broken;
    std::vector<std::size_t> chosen;
    Placement final_place;
    bool found = false;
    while (!tries.empty() && tried.size() < kMaxSearches &&
           (tried.empty() || retries_ == nullptr || *retries_ > 0)) {
      const Exclusions excluded = std::move(tries.front());
      tries.pop_front();
      if (!tried.empty() && retries_ != nullptr) --*retries_;
      tried.push_back(excluded);
      reset(stmt);
      chosen.clear();
      PreemptionPlan failed;
      if (!greedy(stmt, excluded, chosen, failed)) {
        if (tried.size() == 1) return failed;  // no set at all: no rule was involved
        continue;
      }
      // Minimise: drop victims, most expensive first, while the gang still fits.
      for (std::size_t k = chosen.size(); k-- > 0;) {
        reset(stmt);
        for (std::size_t j = 0; j < chosen.size(); ++j)
          if (j != k) releaseCandidate(stmt, nth(chosen[j]));
        const bool still =
            withinQuota() &&
            (counter_ ? counter_->fits() : mayFit() && placeGang(st_, g_, counts_, options()).ok);
        if (still) chosen.erase(chosen.begin() + static_cast<std::ptrdiff_t>(k));
      }
      reset(stmt);
      for (std::size_t j : chosen) releaseCandidate(stmt, nth(j));
      final_place = placeGang(st_, g_, counts_, options());
      if (!final_place.ok) {  // cannot happen: the last successful check used this set
        plan.reason = PendingReason::NoPlacement;
        return plan;
      }
      Exclusions offence;
      std::string broken = checkRules(chosen, excluded, offence);
      if (broken.empty()) {
        found = true;
        break;
      }
      if (first_broken.empty()) first_broken = std::move(broken);
      for (QueueId vq : offence.queues) tries.push_back(excluded.plusQueue(vq));
      for (GangId v : offence.gangs) tries.push_back(excluded.plusGang(v));
      tries.erase(std::remove_if(tries.begin(), tries.end(),
                                 [&](const Exclusions& e) {
                                   return std::find(tried.begin(), tried.end(), e) != tried.end();
                                 }),
                  tries.end());
    }
    if (!found) {
      plan.reason = PendingReason::WaitingForReclaim;
      plan.detail = std::move(first_broken);
      return plan;
    }
    plan.ok = true;
    plan.pods = std::move(final_place.pods);
    for (std::size_t j : chosen) plan.victims.push_back(nth(j).victim);
    return plan;
  }

  // Releases candidates cheapest first (skipping those of `excluded` queues) until the gang
  // is within its limits and fits; `chosen` gets their indexes. On failure, fills `plan`
  // with why and returns false.
  bool greedy(Statement& stmt, const Exclusions& excluded, std::vector<std::size_t>& chosen,
              PreemptionPlan& plan) {
    constexpr int kMaxAttempts = 64;
    int attempts = 0;
    std::size_t skipped = 0;
    for (std::size_t i = 0; i < candidates_.size() && attempts < kMaxAttempts; ++i) {
      const Candidate& c = nth(i);
      if (excluded.excludes(c)) {
        ++skipped;
        continue;
      }
      releaseCandidate(stmt, c);
      chosen.push_back(i);
      // Quota first: every limit on its path with the victims' usage removed.
      if (!withinQuota() || !mayFit()) continue;
      ++attempts;
      if (placeGang(st_, g_, counts_, options()).ok) return true;
    }
    const bool quota_binds = !withinQuota();
    plan.reason = PendingReason::NoPlacement;
    plan.detail = quota_binds ? "preempting every gang it may preempt would still not bring it "
                                "within the limit"
                              : "preempting every gang it may preempt would still not make room";
    // Every candidate released, and the quota check or the exact counter said no each
    // time: no placement attempt was cut short. Neither can turn to yes while no capacity
    // is released and no new source appears (a limit's headroom only shrinks as others are
    // admitted). Gangs skipped as admitted this cycle become candidates in the next, so
    // such a failure is not kept.
    if ((quota_binds || (counter_ && attempts == 0)) && skipped == 0 &&
        chosen.size() == candidates_.size() && admitted_now_ == 0)
      plan.failure = PreemptFailureKind::Exhausted;
    return false;
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
        if (!mayPreemptWithinQueue(qs_, gs_.spec.priority, vs.spec.priority) || !offersCapacity(vs))
          continue;
        if (!runLongEnough(vs, qs_, now_, protected_until_)) {
          ++protected_;
          continue;
        }
        addCandidates(v, q_, PreemptionReason::WithinQueue);
      }
    }
    // Reclaim (only while the preemptor's queue ends within its fair share), then taking
    // back a guarantee.
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
        if (!runLongEnough(st_.gangs[v], vqs, now_, protected_until_) ||
            !mayBeReclaimed(st_.gangs[v], vqs)) {
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
      return st_.constraint_classes[cls].allows_every_usable;
    });
  }

  // A cheap necessary condition (exact for one-shape gangs) before a placement attempt.
  bool mayFit() const {
    if (counter_) return counter_->fits();
    return request_.fitsIn(st_.usable_free);
  }

  // The quota rule with what is released so far removed (queue_limits.h).
  bool withinQuota() const { return !quotaBreach(st_, q_, request_, freed_).has_value(); }

  void noteFreed(QueueId vq, const ResourceVector& amount) {
    for (auto& [queue, sum] : freed_)
      if (queue == vq) {
        sum += amount;
        return;
      }
    freed_.emplace_back(vq, amount);
  }

  void reset(Statement& stmt) {
    stmt.rollbackTo(base_);
    freed_ = base_freed_;
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
          noteFreed(c.queue, st_.requestOf(c.victim.gang, vs.pods[i].pod_set));
          touch(vs.pods[i].node);
        }
      released_whole_.push_back(c.victim.gang);
    } else {
      for (std::size_t i : c.victim.pods) {
        stmt.release(c.victim.gang, vs.pods[i]);
        noteFreed(c.queue, st_.requestOf(c.victim.gang, vs.pods[i].pod_set));
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

  // vq's chosen victims, freeing the most of vq's fair share first (the costlier on a tie):
  // what retries leave out, one at a time, when vq would lose too much.
  std::vector<GangId> victimsOf(const std::vector<std::size_t>& chosen, QueueId vq) {
    const QueueState& v = st_.queues[static_cast<std::size_t>(vq)];
    std::vector<std::pair<double, std::size_t>> by_share;
    for (std::size_t k = 0; k < chosen.size(); ++k)
      if (nth(chosen[k]).queue == vq)
        by_share.emplace_back(dominantShare(nth(chosen[k]).frees, v.fair_share), k);
    std::stable_sort(by_share.begin(), by_share.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second > b.second;
    });
    std::vector<GangId> out;
    for (const auto& [share, k] : by_share) {
      const GangId gang = nth(chosen[k]).victim.gang;
      if (std::find(out.begin(), out.end(), gang) == out.end()) out.push_back(gang);
    }
    return out;
  }

  // The rules on the final set (preemption_rules.h): what breaks one, or empty.
  std::string checkRules(std::vector<std::size_t>& chosen, const Exclusions& excluded,
                         Exclusions& offence) {
    // An eviction makes the same gang's shrink redundant: they count once, as the eviction.
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
    FreedByQueue freed;
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
    RuleOffence offending;
    std::string broken = brokenPreemptionRule(st_, q_, request_, freed, &offending);
    if (offending.queue < 0) return broken;
    // The preemptor's own queue taken too far: when not even every own candidate left
    // would keep it within the rule, no set with a victim of its own can, and leaving them
    // out one at a time only repeats the failure. The sets left are reclaims alone.
    if (offending.whole_queue || (offending.queue == q_ && !ownVictimsMayDo(excluded)))
      offence.queues.push_back(offending.queue);
    else
      offence.gangs = victimsOf(chosen, offending.queue);
    return broken;
  }

  // Whether evicting every candidate of the preemptor's own queue that `excluded` leaves keeps
  // it within the within-queue rule (each gang's whole holding: the most any set frees).
  bool ownVictimsMayDo(const Exclusions& excluded) const {
    std::vector<GangId> gangs;
    for (const Candidate* c : candidates_)
      if (c->queue == q_ && !excluded.excludes(*c)) gangs.push_back(c->victim.gang);
    std::sort(gangs.begin(), gangs.end());
    gangs.erase(std::unique(gangs.begin(), gangs.end()), gangs.end());
    ResourceVector at_most;
    for (GangId v : gangs) at_most += st_.gangs[v].held;
    // The rules on that set alone check the within-queue rule and nothing else.
    return brokenPreemptionRule(st_, q_, request_, FreedByQueue{{q_, at_most}}).empty();
  }

  std::size_t* retries_;  // the cycle's budget of further runs; null: no budget but ours
  EngineState& st_;
  GangId g_;
  const std::vector<std::int32_t>& counts_;
  Seconds now_;
  CandidatePool* pool_;  // null: collect afresh
  const GangState& gs_;
  QueueId q_;
  const QueueState& qs_;
  ResourceVector request_;
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
  std::vector<QueueId> sources_;  // reclaimSources() of this search
  std::size_t admitted_now_ = 0;  // useful victims skipped: admitted this cycle
  std::vector<GangId> released_whole_;
  std::vector<const Victim*> released_shrink_;
  // What the candidates released so far free, by queue, for the quota check: on top of
  // what terminating pods hold (base_freed_).
  FreedByQueue base_freed_;
  FreedByQueue freed_;
};

}  // namespace

PreemptionPlan planPreemption(EngineState& st, GangId g, const std::vector<std::int32_t>& counts,
                              Seconds now, CandidatePool* pool, std::size_t* retries) {
  Search search(st, g, counts, now, pool, retries);
  return search.run();
}

}  // namespace troupe::queueing
