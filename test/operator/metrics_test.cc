#include <catch2/catch.hpp>

#include "common/metrics_registry.h"
#include "controllers/operator_metrics.h"
#include "test/support/promtool.h"

using namespace troupe::controllers;
using troupe::MetricsRegistry;
using troupe::testing::promtoolCheck;

TEST_CASE("the operator's metrics pass promtool's checks", "[operator][metrics]") {
  MetricsRegistry r;
  defineOperatorMetrics(r);
  r.set("troupe_queue_guaranteed", {{"queue", "team-a"}, {"resource", "nvidia.com/gpu"}}, 8);
  r.set("troupe_queue_fair_share", {{"queue", "team-a"}, {"resource", "nvidia.com/gpu"}}, 12.5);
  r.add("troupe_admissions_total", {{"queue", "team-a"}});
  r.add("troupe_preemptions_total", {{"queue", "team-b"}, {"reason", "Reclaim"}});
  r.observe("troupe_submission_to_admission_seconds", {{"queue", "team-a"}}, 42);
  r.observe("troupe_scheduling_cycle_duration_seconds", {}, 0.003);
  r.set("troupe_leader", {}, 1);
  auto text = r.render();
  auto [rc, output] = promtoolCheck(text);
  INFO(text);
  INFO(output);
  CHECK(rc == 0);
}
