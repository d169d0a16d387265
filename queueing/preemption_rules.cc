#include "queueing/preemption_rules.h"

#include <algorithm>

#include <fmt/format.h>

#include "queueing/fair_share.h"

namespace troupe::queueing {
namespace {

// Visits reclaimSources() in order; stops at the first visit that returns false.
template <typename Visit>
void visitReclaimSources(EngineState& st, QueueId q, const ResourceVector& request, Visit visit) {
  const QueueState& qs = st.queues[static_cast<std::size_t>(q)];
  if (!qs.spec.reclaim) return;
  const double after = dominantShare(qs.allocated + request, qs.fair_share);
  if (after > 1.0) return;
  std::vector<QueueId> reclaimed;
  for (const auto& [vq, share] : st.overShareQueues()) {
    if (vq == q || share <= after) continue;
    if (!visit(vq)) return;
    reclaimed.push_back(vq);
  }
  // Taking back its guarantee: the queue ends within its fair share, so it may take
  // borrowed work from queues above their guarantee even when none is above its fair
  // share (free capacity fragmented across nodes). Ending above its own guarantee (gangs
  // are indivisible), it takes only from queues further above theirs than it ends.
  const double g_before = guaranteeShare(qs.allocated, qs.spec.guaranteed);
  const double g_after = guaranteeShare(qs.allocated + request, qs.spec.guaranteed);
  if (g_after > 1.0 && !(g_before < 1.0)) return;
  // Both lists are sorted by queue rank (name), so a merge skips the queues already taken.
  std::size_t next = 0;
  for (const auto& [vq, share] : st.overGuaranteeQueues()) {
    const auto rank = st.queues[static_cast<std::size_t>(vq)].rank;
    while (next < reclaimed.size() &&
           st.queues[static_cast<std::size_t>(reclaimed[next])].rank < rank)
      ++next;
    if (vq == q || (next < reclaimed.size() && reclaimed[next] == vq)) continue;
    if (g_after > 1.0 && !mayTakeBackPastGuarantee(g_before, g_after, share)) continue;
    if (!visit(vq)) return;
  }
}

}  // namespace

bool mayPreemptWithinQueue(const QueueState& q, std::int32_t preemptor_priority,
                           std::int32_t victim_priority) {
  return q.spec.within_queue == WithinQueuePreemption::LowerPriority &&
         victim_priority < preemptor_priority;
}

bool runLongEnough(const GangState& v, const QueueState& vq, Seconds now,
                   Seconds& protected_until) {
  if (!v.spec.preemptible) return false;
  if (now - v.start_time >= vq.spec.min_runtime_seconds) return true;
  protected_until = std::min(protected_until, v.start_time + vq.spec.min_runtime_seconds);
  return false;
}

bool mayBeReclaimed(const GangState& v, const QueueState& vq) {
  return !v.started_on_reservation || v.held[kGpu] <= vq.spec.guaranteed[kGpu];
}

bool offersCapacity(const GangState& v) {
  return v.terminating < static_cast<std::int32_t>(v.pods.size());
}

std::vector<QueueId> reclaimSources(EngineState& st, QueueId q, const ResourceVector& request) {
  std::vector<QueueId> out;
  visitReclaimSources(st, q, request, [&](QueueId vq) {
    out.push_back(vq);
    return true;
  });
  return out;
}

bool hasReclaimSource(EngineState& st, QueueId q, const ResourceVector& request) {
  bool found = false;
  visitReclaimSources(st, q, request, [&](QueueId) {
    found = true;
    return false;
  });
  return found;
}

bool overFairShareToReclaim(EngineState& st, QueueId q, const ResourceVector& request) {
  const QueueState& qs = st.queues[static_cast<std::size_t>(q)];
  if (dominantShare(qs.allocated + request, qs.fair_share) <= 1.0) return false;
  const auto& over = st.overShareQueues();
  return std::any_of(over.begin(), over.end(), [&](const auto& v) { return v.first != q; });
}

std::string brokenPreemptionRule(const EngineState& st, QueueId q, const ResourceVector& request,
                                 const FreedByQueue& freed, RuleOffence* offence) {
  RuleOffence ignored;
  RuleOffence& out = offence != nullptr ? *offence : ignored;
  out = RuleOffence{};
  const QueueState& qs = st.queues[static_cast<std::size_t>(q)];
  const double share_before = dominantShare(qs.allocated, qs.fair_share);
  const double g_before = guaranteeShare(qs.allocated, qs.spec.guaranteed);
  ResourceVector own_after = qs.allocated + request;
  for (const auto& [vq, amount] : freed)
    if (vq == q) own_after -= amount;
  const double q_after = dominantShare(own_after, qs.fair_share);
  // Capacity the preemptor's queue is guaranteed is its own: taking it back from a
  // queue that borrowed it may leave that queue further below its fair share than the
  // preemptor's ends (gangs are indivisible), and still no loop can follow, since the
  // preemptor's queue ends within its fair share and nobody reclaims from such a queue.
  const double g_after = guaranteeShare(own_after, qs.spec.guaranteed);
  const bool within_guarantee = g_after <= 1.0 + 1e-12;
  for (const auto& [vq, amount] : freed) {
    const QueueState& v = st.queues[static_cast<std::size_t>(vq)];
    if (vq == q) {
      // Within the queue: no further above its fair share than before.
      if (std::max(q_after, 1.0) <= std::max(share_before, 1.0) + 1e-12) continue;
      out.queue = vq;  // fewer of its own may do
      return fmt::format(
          "preempting lower priority gangs would take queue {} from {:.3f} to "
          "{:.3f} of its fair share",
          qs.spec.name, share_before, q_after);
    }
    const double v_before = dominantShare(v.allocated, v.fair_share);
    const double v_after = dominantShare(v.allocated - amount, v.fair_share);
    // Rule 4: a queue within its fair share loses only borrowed work, and only to one
    // taking back its guarantee: ending within it, or above it (gangs are indivisible) by
    // less than the victim's queue was above its own.
    const double v_g_before = guaranteeShare(v.allocated, v.spec.guaranteed);
    const bool borrowed = v_g_before > 1.0;
    if (v_before <= 1.0 &&
        !(borrowed &&
          (within_guarantee || mayTakeBackPastGuarantee(g_before, g_after, v_g_before)))) {
      out = RuleOffence{vq, true};  // none of its gangs may be taken
      return fmt::format(
          "queue {} holds no more than its fair share and queue {} would end above its "
          "guarantee",
          v.spec.name, qs.spec.name);
    }
    // Rule 3, second waiver: the preemptor may also end above a victim's queue that keeps
    // all of its own guarantee: gangs are indivisible, so the victim's queue may drop
    // further below its fair share than the preemptor's ends, yet holding its whole
    // guarantee it has nothing to take back, and the preemptor's queue, within its fair
    // share, is no reclaim victim. (Not a queue guaranteed nothing: evicting its 8-GPU gang
    // for a 1-GPU job would strand 7 GPUs that neither queue could then use.)
    const bool keeps_guarantee =
        !v.spec.guaranteed.isZero() &&
        guaranteeShare(v.allocated - amount, v.spec.guaranteed) >= 1.0 - 1e-12;
    // Rules 1 and 2, with rule 3's waivers.
    const bool ends_above = q_after > v_after + 1e-12 && !within_guarantee && !keeps_guarantee;
    // Taking less from it may keep the preemptor at or below it.
    if (q_after <= 1.0 + 1e-12 && ends_above) out.queue = vq;
    if (q_after > 1.0 + 1e-12 || ends_above || !(v_after < v_before))
      return fmt::format(
          "reclaiming from queue {} would leave it at {:.3f} of its fair share{} "
          "and queue {} at {:.3f}: the preemptor must not end above the victim",
          v.spec.name, v_after,
          v.spec.guaranteed.isZero() || keeps_guarantee ? "" : " and below its guarantee",
          qs.spec.name, q_after);
  }
  return "";
}

}  // namespace troupe::queueing
