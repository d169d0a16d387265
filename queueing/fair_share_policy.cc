#include "queueing/fair_share_policy.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <string>
#include <vector>

#include "queueing/elastic_growth.h"
#include "queueing/gang_admission.h"
#include "queueing/queue_turn.h"

namespace troupe::queueing {
namespace {

// The walk starts loading the state of the gang kAhead places after the next one (the
// pending list's ahead(kAhead)). Most visits only hand a gang the answer an earlier gang
// of its ask got, under 100 ns each, so a load started two visits ahead was still on its
// way when the gang came up: nine ahead took a tenth off the full cycle and the slowest
// completions at 100 queues of 1,000 gangs (docs/benchmarks.md); 7 to 17 did as well.
constexpr std::size_t kAhead = 8;

// Starts loading the parts of g's state that trying it and setting its explanation read
// first; only its explanation when it will most likely be given an answer shared in the
// walk.
void prefetchGang(const EngineState& st, GangId g, bool answered) {
  const GangState& gs = st.gangs[g];
  __builtin_prefetch(&gs.why);
  __builtin_prefetch(&gs.evicted_cycle);
  if (answered) return;
  __builtin_prefetch(&gs.spec.pod_sets);
  __builtin_prefetch(&gs.min_request);
  __builtin_prefetch(&gs.ways);
}

// The second step: the arrays the gang's state points to, which prefetchGang() loaded.
void prefetchPodSets(const EngineState& st, GangId g) {
  const GangState& gs = st.gangs[g];
  __builtin_prefetch(gs.spec.pod_sets.data());
  __builtin_prefetch(gs.classes.data());
  // A gang with alternatives tries each way in turn (EngineState::useWay reads all of it).
  for (const GangWay& way : gs.ways) {
    const char* p = reinterpret_cast<const char*>(&way);
    for (std::size_t line = 0; line < sizeof(GangWay); line += 64) __builtin_prefetch(p + line);
  }
}

}  // namespace

void FairSharePolicy::admit(CycleRun& run) {
  walkQueues(run);
  if (run.policy().elastic_growth && !run.someoneWaits()) growElasticGangs(run);
}

Seconds FairSharePolicy::nextWakeup(CycleRun& run) const {
  const EngineState& st = run.state();
  Seconds next = kNever;
  auto consider = [&](Seconds t) {
    if (t > run.now() && t < next) next = t;
  };
  // A queue not examined this cycle kept the value of its last examination, which
  // still holds: it is skipped only while nothing of it changed and now < next_starving.
  if (st.policy.backfill)
    for (QueueId q : st.queues_by_rank) {
      const QueueState& qs = st.queues[static_cast<std::size_t>(q)];
      if (qs.leaf() && !qs.pending.empty()) consider(run.memo().look(q).next_starving);
    }
  consider(run.memo().protectionExpiry());
  for (const Reservation& r : st.reservations) consider(r.shadow_time);
  return next;
}

void FairSharePolicy::walkQueues(CycleRun& run) const {
  EngineState& st = run.state();
  AnswerMemo& memo = run.memo();
  const Policy& policy = st.policy;
  std::priority_queue<QueueTurn, std::vector<QueueTurn>, std::greater<>> heap;
  const std::size_t nq = st.queues.size();
  std::vector<std::uint8_t> started(nq, 0);
  std::vector<std::string> blocked_by(nq);
  GangAdmission admission(run);
  for (QueueId q : st.queues_by_rank) {
    const QueueState& qs = st.queues[static_cast<std::size_t>(q)];
    if (qs.leaf() && !qs.pending.empty()) heap.push(queueTurn(st, q));
  }
  while (!heap.empty()) {
    const QueueId q = heap.top().queue;
    heap.pop();
    const auto qi = static_cast<std::size_t>(q);
    QueueState& qs = st.queues[qi];
    QueueLook& look = memo.look(q);
    if (!started[qi] && policy.skip_unchanged_queues &&
        memo.unchanged(st, q, run.now(), run.searchesLeft())) {
      if (look.waits) run.noteSomeoneWaits();
      continue;
    }
    if (!started[qi]) memo.beginLook(st, q);
    // A queue's walk resumes where it paused when it comes back after an admission.
    if (!started[qi]) qs.pending.beginWalk();
    started[qi] = 1;
    // Answers are shared within one stretch of one queue's walk only.
    memo.forgetAnswers();
    bool admitted = false;
    const Seconds max_wait = run.maxWait(qs);
    // For prefetching only: whether a gang of this ask would find a shared answer now.
    auto likelyAnswered = [&](const PendingList::Ask& ask) {
      return memo.askMayShare(policy, ask, run.now(), max_wait) && memo.answered(ask);
    };
    for (GangId g = qs.pending.next(); g != kNoGang; g = qs.pending.next()) {
      const PendingList::Ask ask = qs.pending.visitedAsk();
      // The next gangs' state is far from this one's: fetch it while this one is tried,
      // in the two steps trying it reads it (the pod sets' address is in the gang's state),
      // and only the explanation of a gang whose ask was answered in this stretch.
      if (const GangId after = qs.pending.ahead(kAhead); after != kNoGang)
        prefetchGang(st, after, likelyAnswered(qs.pending.aheadAsk(kAhead)));
      if (const GangId after = qs.pending.ahead(0); after != kNoGang)
        if (!likelyAnswered(qs.pending.aheadAsk(0))) prefetchPodSets(st, after);
      if (!blocked_by[qi].empty() && st.gangs[g].evicted_cycle != st.cycle) {
        // Without backfill the queue is FIFO: nothing passes its first waiting gang.
        Why why = run.baseWhy(g);
        why.reason = PendingReason::BlockedByQueueHead;
        why.blocking = blocked_by[qi];
        run.setWhy(g, why);
        continue;
      }
      const bool may_share =
          memo.askMayShare(policy, ask, run.now(), max_wait) && !st.holdsReservation(g);
      if (may_share && st.gangs[g].evicted_cycle != st.cycle) {
        if (const WalkAnswer* answer = memo.sharedAnswer(st, ask)) {
          // As below for a gang that waits, with what the first gang of the ask noted: a
          // gang with alternatives waits on the way that gang waits on.
          const Why* shared = &answer->why;
          if (!st.gangs[g].ways.empty()) st.useWay(g, answer->way);
          run.setWhy(g, *shared);
          if (waitsForCapacity(shared->reason)) look.waits = true;
          const Seconds starves = ask.submit_time + max_wait;
          if (starves > run.now()) look.next_starving = std::min(look.next_starving, starves);
          if (!policy.backfill && waitsForCapacity(shared->reason)) blocked_by[qi] = st.gangName(g);
          continue;
        }
      }
      if (admission.tryToAdmit(g)) {
        admitted = true;
        break;
      }
      const GangState& gs = st.gangs[g];
      // A gang that counted on terminating capacity took its share of it: the next gang
      // of its ask is tried for itself.
      if (may_share && gs.evicted_cycle != st.cycle && !run.countedOnByLast())
        memo.shareAnswer(st, ask, WalkAnswer{gs.why, gs.way});
      memo.noteWaiting(st, q, g, run.starving(g));
      if (waitsForCapacity(gs.why.reason)) look.waits = true;
      const Seconds starves = gs.spec.submit_time + max_wait;
      if (starves > run.now()) look.next_starving = std::min(look.next_starving, starves);
      if (!policy.backfill && waitsForCapacity(gs.why.reason)) blocked_by[qi] = st.gangName(g);
    }
    if (admitted && qs.pending.peek() != kNoGang) heap.push(queueTurn(st, q));
  }
  for (std::size_t qi = 0; qi < nq; ++qi)
    if (started[qi]) st.queues[qi].pending.endWalk();
}

}  // namespace troupe::queueing
