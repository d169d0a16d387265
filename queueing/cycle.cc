#include "queueing/cycle.h"

#include <vector>

#include "queueing/cycle_run.h"
#include "queueing/fair_share.h"
#include "queueing/reservations.h"

namespace troupe::queueing {
namespace {

// Every queue's fair share from the tree, demand and usable capacity (fair_share.h).
void computeShares(EngineState& st) {
  st.shares_dirty = false;
  std::vector<QueueId> order;
  std::vector<int> index(st.queues.size(), -1);
  for (QueueId q : st.queues_by_rank)
    if (st.queues[static_cast<std::size_t>(q)].parent < 0) order.push_back(q);
  for (std::size_t i = 0; i < order.size(); ++i)
    for (QueueId c : st.queues[static_cast<std::size_t>(order[i])].children) order.push_back(c);
  std::vector<FairShareQueue> in;
  in.reserve(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    const QueueState& q = st.queues[static_cast<std::size_t>(order[i])];
    index[static_cast<std::size_t>(order[i])] = static_cast<int>(i);
    in.push_back(
        FairShareQueue{.parent = q.parent < 0 ? -1 : index[static_cast<std::size_t>(q.parent)],
                       .guaranteed = q.spec.guaranteed,
                       .limit = q.spec.limit,
                       .lending_limit = q.spec.lending_limit,
                       .over_quota_weight = q.spec.over_quota_weight,
                       .priority = q.spec.priority,
                       .demand = q.demand});
  }
  const auto shares = computeFairShares(in, st.usable_capacity);
  bool moved = false;
  for (std::size_t i = 0; i < order.size(); ++i) {
    ResourceVector& fair = st.queues[static_cast<std::size_t>(order[i])].fair_share;
    moved = moved || !(fair == shares[i]);
    fair = shares[i];
  }
  if (moved) ++st.versions.alloc;  // shares are inputs of preemption and ordering
}

}  // namespace

Decisions runCycle(EngineState& st, AnswerMemo& memo, SchedulingPolicy& policy, Seconds now) {
  Decisions out;
  ++st.cycle;
  if (now < st.last_now) now = st.last_now;  // time never runs backwards
  st.last_now = now;
  out.cycle = st.cycle;
  out.now = now;
  // Scan tallies are kept within one cycle only.
  st.scan_tallies.forget();
  CycleRun run(st, memo, now, out);
  st.refreshIndexes();
  if (st.shares_dirty) computeShares(st);
  restoreReservations(st, memo, now);
  memo.startCycle(st, now);
  st.terminating.forgetClaims();
  policy.admit(run);
  run.givePledgesBack();
  run.explainOrphans();
  run.report();
  if (const Seconds next = policy.nextWakeup(run); next != kNever) out.next_wakeup = next;
  return out;
}

}  // namespace troupe::queueing
