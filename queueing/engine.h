#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "queueing/decisions.h"
#include "queueing/policy.h"
#include "queueing/snapshot.h"

namespace troupe::queueing {

class AnswerMemo;
class EngineState;
class SchedulingPolicy;

// The scheduling engine. It holds the cluster as the caller last described it (nodes,
// queues, pending and running gangs), takes changes as deltas and runs cycles.
//
// - Pure and deterministic: no I/O, no clock (time comes with schedule()), no threads, no
//   globals. The same sequence of calls gives the same decisions; no decision depends on
//   the order of elements within one call or on hash-map iteration: every order ends in
//   a name.
// - Assume-then-write: schedule() applies its own decisions to the engine's state (an
//   admitted gang is running from then on, a preempted one is pending again at its
//   original submit time, a resized one has its new size). The caller carries them out
//   and reports what happens next with the delta calls (remove() when a gang finishes).
// - Incremental: state and indexes live across cycles, so a cycle after a small delta
//   costs little (docs/scheduling.md gives the figures).
//
// Bad input returns an Error naming the field and the rule; it never crashes.
class Engine {
 public:
  explicit Engine(Policy policy = {});
  ~Engine();
  Engine(Engine&&) noexcept;
  Engine& operator=(Engine&&) noexcept;
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // An engine holding everything in `snapshot` (its `now` is not used until schedule()).
  static Result<Engine> fromSnapshot(const Snapshot& snapshot, Policy policy = {});

  // Makes room for this many gangs and nodes in all, so that loading a whole cluster does
  // not grow (and move) the gang table step by step. Changes nothing else.
  void reserve(std::size_t gangs, std::size_t nodes);

  // Adds a node or replaces its spec (labels, taints, allocatable, readiness). Pods
  // already on it stay; if they no longer fit, the node is simply full.
  Status upsertNode(NodeSpec node);
  // Removes a node. Fails (Conflict) while running pods are on it: remove those gangs first.
  Status removeNode(const std::string& name);
  // Adds a queue or replaces its spec, including its decayed usage. A parent must exist
  // before its children; gangs may only sit in leaf queues.
  Status upsertQueue(QueueSpec queue);
  // Removes a queue that has no children and no gangs.
  Status removeQueue(const std::string& name);
  // Adds a pending gang. Its queue may not exist yet: it then waits with QueueNotFound.
  Status submit(GangSpec gang);
  // Adds a gang that already runs (e.g. when rebuilding from the cluster).
  Status addRunning(RunningGang gang);
  // A pending or running gang leaves (finished, failed or deleted); its capacity frees.
  Status remove(const std::string& gang);

  // Runs one scheduling cycle at time `now` (not earlier than the previous cycle's).
  Decisions schedule(Seconds now);

  // Queries, for the caller and for tests.
  bool isPending(const std::string& gang) const;
  bool isRunning(const std::string& gang) const;
  std::optional<RunningGang> running(const std::string& gang) const;
  // The current explanation of a pending gang, as of the last cycle.
  std::optional<PendingExplanation> explanation(const std::string& gang) const;
  // Only its reason, as of the last cycle: no explanation is built.
  std::optional<PendingReason> pendingReason(const std::string& gang) const;
  std::optional<QueueStatus> queueStatus(const std::string& queue) const;
  std::size_t pendingCount() const;
  std::size_t runningCount() const;

  // Whether the engine holds exactly this: a node or queue with an equal spec, a pending
  // gang with an equal spec, a running gang with an equal spec, start time (unless
  // `compare_start` is false) and pods (in the same order, GPUs as a set). A caller that
  // keeps one engine across cycles sends only what fails these
  // (controllers/engine_sync.h).
  bool holds(const NodeSpec& node) const;
  bool holds(const QueueSpec& queue) const;
  bool holdsPending(const GangSpec& gang) const;
  bool holdsRunning(const RunningGang& gang, bool compare_start = true) const;
  // The nodes the engine holds, by name (sorted): to find those a caller no longer has.
  std::size_t nodeCount() const;
  std::vector<std::string> nodeNames() const;
  const Policy& policy() const;

  // The gangs whose state (added, removed, started, stopped, grown or shrunk) changed
  // since trackChanges() or the last forgetChanges(), by name, sorted; it may name a few
  // more. Between two syncs these are what schedule() decided: a caller that keeps the
  // engine in step with the world need not ask holds*() of a gang it did not change and
  // the engine did not. Not kept until trackChanges() (one-off engines need no log).
  void trackChanges();
  std::vector<std::string> changedGangs() const;
  void forgetChanges();

 private:
  std::unique_ptr<EngineState> state_;
  // Answers kept across cycles (answer_memo.h).
  std::unique_ptr<AnswerMemo> memo_;
  // The policy `Policy::kind` names (scheduling_policy.h).
  std::unique_ptr<SchedulingPolicy> scheduling_;
};

// One stateless cycle over a whole snapshot: Engine::fromSnapshot then schedule(now). No
// engine stays to be asked, so the explanation of every gang left pending comes with it.
struct SnapshotCycle {
  Decisions decisions;
  std::vector<PendingExplanation> pending;  // in the order of decisions.explained
};
Result<SnapshotCycle> scheduleSnapshot(const Snapshot& snapshot, const Policy& policy = {});

}  // namespace troupe::queueing
