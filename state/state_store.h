#pragma once

#include <mutex>
#include <utility>

#include "common/result.h"
#include "state/admission_journal.h"
#include "state/job_accounting.h"
#include "state/state_database.h"
#include "state/usage_history.h"

// The state database as the operator's threads share it: its one connection behind one
// lock, taken by the scheduling thread (journal, accounting, usage history) and the
// reconcile workers (accounting) in turn.
namespace troupe::state {

class StateStore {
 public:
  explicit StateStore(StateDatabase& db)
      : db_(db), journal_(db), usage_history_(db), accounting_(db) {}
  StateStore(const StateStore&) = delete;
  StateStore& operator=(const StateStore&) = delete;

  // Use these inside transaction() or while hold()ing the store.
  AdmissionJournal& journal() { return journal_; }
  UsageHistory& usageHistory() { return usage_history_; }
  JobAccounting& accounting() { return accounting_; }

  // Runs `body` holding the store, in one transaction: its writes share one commit, and a
  // body that returns an error rolls back every write it made.
  template <typename Body>
  Status transaction(Body&& body) {
    std::lock_guard lock(mu_);
    return db_.transaction(std::forward<Body>(body));
  }
  // Holds the store until the lock is let go: reads, and writes of their own commits.
  [[nodiscard]] std::unique_lock<std::mutex> hold() { return std::unique_lock(mu_); }

 private:
  StateDatabase& db_;
  std::mutex mu_;
  AdmissionJournal journal_;
  UsageHistory usage_history_;
  JobAccounting accounting_;
};

}  // namespace troupe::state
