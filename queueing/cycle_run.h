#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "queueing/answer_memo.h"
#include "queueing/decisions.h"
#include "queueing/engine_state.h"
#include "queueing/preemption.h"
#include "queueing/terminating_wait.h"

namespace troupe::queueing {

// One scheduling cycle in progress, as a scheduling policy sees it: the state and the
// memo, the time, and the decisions so far. Every decision goes through here, so that
// what the caller is told and what the state holds stay one: an admission starts the gang
// at once (assume, then write), an eviction sends it back to pending, a shrink or growth
// resizes it, and a gang's explanation is reported when it changes.
class CycleRun {
 public:
  CycleRun(EngineState& st, AnswerMemo& memo, Seconds now, Decisions& out)
      : st_(st), memo_(memo), now_(now), out_(out) {}
  CycleRun(const CycleRun&) = delete;
  CycleRun& operator=(const CycleRun&) = delete;

  EngineState& state() { return st_; }
  const EngineState& state() const { return st_; }
  AnswerMemo& memo() { return memo_; }
  const Policy& policy() const { return st_.policy; }
  Seconds now() const { return now_; }

  // ---- time ----

  // How long a gang of queue q may wait before it starves.
  Seconds maxWait(const QueueState& q) const {
    return q.spec.max_wait_seconds.value_or(st_.policy.default_max_wait_seconds);
  }
  // Whether pending gang g has waited past its queue's maximum wait.
  bool starving(GangId g) const;

  // ---- explanations ----

  // A fresh explanation of g: its dominant resource, no reason yet.
  Why baseWhy(GangId g) const;
  // Records why g waits; reported when it is news (Why::sameApartFromDomain).
  void setWhy(GangId g, const Why& why);
  // Some gang was explained this cycle as waiting for capacity (waitsForCapacity()).
  bool someoneWaits() const { return someone_waits_; }
  void noteSomeoneWaits() { someone_waits_ = true; }

  // ---- decisions ----

  // Starts g on `pods` (its reservation, if any, ends).
  void admit(GangId g, std::vector<Pod> pods);
  // Evicts and shrinks the victims of a preemption plan for `preemptor`; capacity came
  // free, so the memo is told.
  void preemptVictims(GangId preemptor, const std::vector<Victim>& victims);
  // Whether g was shrunk for a preemption in this cycle (it does not grow back in it).
  bool shrunk(GangId g) const;
  // Running gang g grew by `added` (elastic growth): a resize, or more pods for the
  // admission that started it in this cycle.
  void grew(GangId g, std::vector<Pod> added);

  // ---- terminating capacity ----

  // When g, at `counts`, fits once terminating pods no earlier gang of this cycle counted
  // on are gone: it waits for them (WaitingForReclaim naming their gangs), counting on
  // their capacity and holding the free part of its placement until the cycle ends.
  // `victims`: gangs this cycle evicted or shrank for g, named among those it waits for.
  bool countOnTerminating(GangId g, const std::vector<std::int32_t>& counts, Why& why,
                          const std::vector<GangId>& victims = {});
  // Whether the gang last tried (since forgetCountedOnByLast()) counted on some.
  bool countedOnByLast() const { return counted_on_by_last_; }
  void forgetCountedOnByLast() { counted_on_by_last_ = false; }
  // The gang last tried counts on what terminating pods hold, without a pledge.
  void noteCountedOnByLast() { counted_on_by_last_ = true; }

  // ---- the preemption budget (Policy::max_preemption_searches) ----

  bool searchesLeft() const { return searches_ < st_.policy.max_preemption_searches; }
  void noteSearch() { ++searches_; }
  // Further runs of searches whose set broke a final-set rule, left for this cycle
  // (planPreemption decrements it).
  std::size_t* retryBudget() { return &retries_left_; }

  // ---- the cycle's end ----

  // The free capacity waiting gangs held is free again.
  void givePledgesBack();
  // Gangs naming a queue that does not exist wait with QueueNotFound.
  void explainOrphans();
  // The gangs whose explanation changed, by name, and every queue's status.
  void report();

  // Sorts gangs by name, reading their name keys first.
  void sortByName(std::vector<GangId>& gangs) const;

 private:
  EngineState& st_;
  AnswerMemo& memo_;
  Seconds now_;
  Decisions& out_;
  bool someone_waits_ = false;
  int searches_ = 0;
  // Further runs of preemption searches whose set broke a final-set rule, for the whole
  // cycle: a search may run 16 times, and 16 failing searches a cycle would cost 256 runs.
  static constexpr std::size_t kRetriesPerCycle = 16;
  std::size_t retries_left_ = kRetriesPerCycle;
  // Free capacity held by gangs waiting for terminating pods, given back at the end.
  std::vector<Pledge> pledges_;
  bool counted_on_terminating_ = false;
  bool counted_on_by_last_ = false;
  std::vector<GangId> changed_;
  std::vector<std::pair<GangId, std::size_t>> admitted_at_;  // gang, index in admissions
  std::vector<GangId> shrunk_;
};

}  // namespace troupe::queueing
