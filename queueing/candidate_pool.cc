#include "queueing/candidate_pool.h"

#include <algorithm>

#include "queueing/preemption_rules.h"

namespace troupe::queueing {

bool cheaper(const EngineState& st, const Candidate& a, const Candidate& b) {
  const auto& [ka, pa, ra, ia] = a.cost;
  const auto& [kb, pb, rb, ib] = b.cost;
  if (ka != kb) return ka < kb;
  if (pa != pb) return pa < pb;
  if (ra != rb) return ra < rb;
  if (a.victim.gang != b.victim.gang) {
    // Names by their 16-byte prefix keys first (EngineState::name_keys), the strings only
    // when those are equal: the same order as comparing the strings.
    const NameKey& x = st.name_keys[a.victim.gang];
    const NameKey& y = st.name_keys[b.victim.gang];
    if (x.hi != y.hi) return x.hi < y.hi;
    if (x.lo != y.lo) return x.lo < y.lo;
    if (const int c = st.gangName(a.victim.gang).compare(st.gangName(b.victim.gang)); c != 0)
      return c < 0;
  }
  return ia < ib;
}

void appendCandidates(const EngineState& st, GangId v, QueueId vq, PreemptionReason reason,
                      std::vector<Candidate>& out) {
  const GangState& vs = st.gangs[v];
  // Elastic surplus: each pod beyond its pod set's minimum is a candidate of its own,
  // the last placed first, so a reclaim takes only the pods it needs. Terminating pods
  // are going already: neither a candidate nor counted toward the minimum kept.
  std::vector<std::int32_t> keep(vs.spec.pod_sets.size());
  for (std::size_t i = 0; i < keep.size(); ++i) keep[i] = vs.spec.pod_sets[i].min_count;
  std::vector<std::int32_t> seen(keep.size(), 0);
  // Less run time lost first: the later start first, whatever the time now.
  const Seconds ran = -vs.start_time;
  for (std::size_t i = 0; i < vs.pods.size(); ++i) {
    if (vs.pods[i].terminating) continue;
    const auto ps = static_cast<std::size_t>(vs.pods[i].pod_set);
    if (++seen[ps] <= keep[ps]) continue;
    out.push_back(Candidate{Victim{v, false, {i}, reason},
                            vq,
                            st.requestOf(v, vs.pods[i].pod_set),
                            {0, vs.spec.priority, ran, -static_cast<std::int64_t>(i)}});
  }
  // A whole gang from a queue above its fair share before a lower-priority gang of the
  // preemptor's own queue: taking back what another queue borrowed is what the fair share
  // asks for, and evicting one's own work for it would only send that work to reclaim in
  // turn (as Kueue orders other queues' borrowing workloads first).
  // A gang with terminating pods is on its way out (preempted, restarting, suspended) or
  // shrinking: evicting it would count what is freeing already as freed by the eviction.
  if (vs.terminating > 0) return;
  const int whole = reason == PreemptionReason::WithinQueue ? 2 : 1;
  out.push_back(
      Candidate{Victim{v, true, {}, reason}, vq, vs.held, {whole, vs.spec.priority, ran, 0}});
}

const SourceCandidates& CandidatePool::of(const EngineState& st, QueueId vq, Seconds now) {
  const auto i = static_cast<std::size_t>(vq);
  if (by_queue_.size() < st.queues.size()) by_queue_.resize(st.queues.size());
  SourceCandidates& s = by_queue_[i];
  const bool holds = s.built && s.running_version == st.queues[i].running_version &&
                     s.node_epoch == st.versions.nodes && now < s.protected_until &&
                     (s.cycle == st.cycle || s.admitted_now.empty());
  if (!holds) build(st, vq, now, s);
  return s;
}

void CandidatePool::build(const EngineState& st, QueueId vq, Seconds now, SourceCandidates& out) {
  ++builds_;
  const QueueState& vqs = st.queues[static_cast<std::size_t>(vq)];
  out.built = true;
  out.running_version = vqs.running_version;
  out.node_epoch = st.versions.nodes;
  out.cycle = st.cycle;
  out.candidates.clear();
  out.on_usable.clear();
  out.admitted_now.clear();
  out.protected_count = 0;
  out.protected_until = kNever;
  for (GangId v : vqs.running) {
    const GangState& vs = st.gangs[v];
    if (!offersCapacity(vs)) continue;
    if (!runLongEnough(vs, vqs, now, out.protected_until) || !mayBeReclaimed(vs, vqs)) {
      ++out.protected_count;
      continue;
    }
    const bool on_usable = std::any_of(vs.pods.begin(), vs.pods.end(),
                                       [&](const Pod& p) { return st.nodes[p.node].usable(); });
    if (vs.admitted_cycle == st.cycle) {
      out.admitted_now.emplace_back(v, on_usable);
      continue;
    }
    const std::size_t before = out.candidates.size();
    appendCandidates(st, v, vq, PreemptionReason::Reclaim, out.candidates);
    out.on_usable.resize(out.candidates.size(), 0);
    std::fill(out.on_usable.begin() + static_cast<std::ptrdiff_t>(before), out.on_usable.end(),
              on_usable);
  }
  // Cheapest first, with on_usable kept beside its candidate.
  std::vector<std::uint32_t> order(out.candidates.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::uint32_t>(i);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return cheaper(st, out.candidates[a], out.candidates[b]);
  });
  std::vector<Candidate> sorted;
  std::vector<std::uint8_t> usable;
  sorted.reserve(order.size());
  usable.reserve(order.size());
  for (std::uint32_t i : order) {
    sorted.push_back(std::move(out.candidates[i]));
    usable.push_back(out.on_usable[i]);
  }
  out.candidates = std::move(sorted);
  out.on_usable = std::move(usable);
}

}  // namespace troupe::queueing
