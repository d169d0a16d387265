#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "queueing/snapshot.h"

namespace troupe::queueing {

// Which scheduling policy (scheduling_policy.h) an engine runs; the Engine makes the
// implementation the kind names.
enum class PolicyKind {
  // FifoPolicy (fifo_policy.h): strict FIFO gang scheduling over all queues, by submit
  // time then name: the head blocks everything behind it; no preemption, no backfill, no
  // elastic growth. The baseline the other policy is measured against.
  Fifo,
  // FairSharePolicy (fair_share_policy.h): hierarchical DRF fair share with decayed
  // usage, gang placement with topology and packing, loop-free reclaim and preemption,
  // elastic resize, backfill with reservations for starving gangs (docs/scheduling.md).
  Troupe,
  // StaticPartitionPolicy (static_partition_policy.h): Hadoop YARN's CapacityScheduler
  // with maximum-capacity = capacity, as Philly ran: each leaf queue holds at most its
  // guarantee, never borrowing idle GPUs; FIFO within a queue.
  YarnCapacity,
  // CohortQuotaPolicy (cohort_quota_policy.h): Kueue's ClusterQueues in a Cohort with
  // borrowing, BestEffortFIFO, reclaimWithinCohort Any, withinClusterQueue LowerPriority;
  // quota reserved for the whole gang at admission, pods placed afterwards.
  Kueue,
  // DiscretizedLasPolicy (discretized_las_policy.h): Tiresias' discretized 2D-LAS over the
  // whole cluster, duration-unaware, preemptive, with starvation promotion.
  Tiresias,
  // ShortestRemainingPolicy (shortest_remaining_policy.h): preemptive shortest remaining
  // time first over the whole cluster with known run times (GangSpec::runtime_estimate):
  // an oracle bound, not a scheduler one could run.
  Srtf,
};

// Tiresias' knobs (DiscretizedLasPolicy). Attained service is GPUs x seconds run.
struct TiresiasKnobs {
  // Ascending attained-service thresholds in GPU-seconds: a gang below thresholds[0] is
  // in the first (highest) queue, below thresholds[1] in the second, and so on; K
  // thresholds make K + 1 queues.
  std::vector<std::int64_t> thresholds = {3600};
  // A waiting gang is promoted to the first queue once it has waited, since it last ran,
  // promote_knob times as long as it last ran (Tiresias' STARVELIMIT). 0: never.
  std::int64_t promote_knob = 8;
};

// The engine's settings: the policy it runs and the knobs of Troupe's rules.
struct Policy {
  PolicyKind kind = PolicyKind::Troupe;
  // Topology levels from the widest to the narrowest, as node label keys. A gang's
  // topology constraint names one of them; a preferred constraint falls back to the
  // wider levels in turn, then to the whole cluster.
  std::vector<std::string> topology_levels = {"troupe.dev/block", "troupe.dev/rack"};
  // Half-life of the decayed usage (usage.h). The engine does not decay by itself; the
  // caller advances QueueSpec::decayed_usage with advanceUsage().
  Seconds usage_half_life_seconds = 3600;
  // How much decayed usage weighs against current allocation when ordering queues:
  // 0 orders by allocation only, 1 by history only.
  double usage_weight = 0.5;
  // Max wait for queues that do not set max_wait_seconds.
  Seconds default_max_wait_seconds = 3600;
  bool preemption = true;
  bool backfill = true;
  bool elastic_growth = true;
  // At most this many starving gangs hold reservations at once (as Slurm's backfill
  // bounds the jobs it plans for); the earliest in admission order get them.
  int max_reservations = 8;
  // At most this many of them held by the gangs of one leaf queue (as Slurm's
  // bf_max_job_assoc bounds what one account plans): under a backlog nearly every waiting
  // gang starves, and one queue's gangs must not hold every reservation while another
  // queue's starve without one.
  int max_reservations_per_queue = 1;
  // Preemption searches (each a few placements over the eligible nodes) per cycle; gangs
  // past the budget try again next cycle. Bounds the cost of a cycle on a full cluster.
  int max_preemption_searches = 16;
  // Skip queues whose inputs did not move since their last examination (their gangs
  // would fail the same way again). Off: every queue is examined every cycle, with the
  // same decisions; explanations of skipped queues keep their last numbers. Tests compare
  // the two.
  bool skip_unchanged_queues = true;
  // Share each source queue's reclaim candidates between preemption searches, within a
  // cycle and across cycles, rebuilt when its running gangs change (candidate_pool.h).
  // Off: every search collects them afresh, with the same decisions. Tests compare the two.
  bool share_preemption_candidates = true;
  // Keep a placement scan's per-node counts for a kind of gang within a cycle and bring
  // them up to date from the nodes whose capacity changed, instead of scanning every
  // eligible node for each gang of the kind (scan_tallies.h). Off: every placement scans
  // afresh, with the same decisions. Tests compare the two.
  bool share_placement_scans = true;
  // Give a waiting gang the answer an earlier gang of the same queue's walk got for the
  // same ask (kind, pods, priority) while no memo or allocation moved, instead of trying it
  // again (answer_memo.h). Off: every gang is tried, with the same decisions and
  // explanations. Tests compare the two.
  bool share_walk_answers = true;
  // Plan a reservation again after a release only when that could move it: keep its plan
  // while its nodes' free capacity, the nodes and the reservations before it are as they
  // were and no other node of its domain has become freer than its least free node
  // (reservation_plans.h). Off: every reservation is planned again whenever capacity was
  // released, with the same decisions. Tests compare the two.
  bool keep_reservation_plans = true;
  // Read by PolicyKind::Tiresias only.
  TiresiasKnobs tiresias;
};

}  // namespace troupe::queueing
