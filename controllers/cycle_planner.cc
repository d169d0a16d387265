#include "controllers/cycle_planner.h"

#include "controllers/cycle_timer.h"

namespace troupe::controllers {

CyclePlanner::CyclePlanner(queueing::Policy policy) : policy_(std::move(policy)) {
  engine_.emplace(policy_);
}

PlannedCycle CyclePlanner::plan(const ApiObjects& objects, SnapshotOptions options,
                                std::int64_t cycle, CycleTimer& timer) {
  PlannedCycle out;
  const auto t = options.now;
  options.facts = &facts_;
  out.cluster = buildClusterSnapshot(objects, options);
  timer.step("snapshot");
  out.refused = engine_->sync(out.cluster);
  timer.step("sync");
  out.decisions = engine_->engine().schedule(t);
  out.decisions.cycle = cycle;
  timer.step("schedule");
  out.plan = planActions(out.decisions, out.cluster, t);
  timer.step("plan");
  return out;
}

void CyclePlanner::recycle(ClusterSnapshot&& cluster) {
  controllers::recycle(std::move(cluster), facts_);
}

void CyclePlanner::reset() {
  facts_ = SnapshotFacts{};
  engine_.emplace(policy_);
}

}  // namespace troupe::controllers
