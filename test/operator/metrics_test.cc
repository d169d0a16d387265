#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "operator/metrics_registry.h"
#include "operator/operator_metrics.h"
#include "test/support/temp_dir.h"

using namespace troupe::operator_runtime;

namespace {

// Runs `promtool check metrics` on `text`; returns its exit status and output.
std::pair<int, std::string> promtoolCheck(const std::string& text) {
  troupe::testing::TempDir dir;
  auto in = dir.write("metrics.txt", text);
  auto out = dir.file("promtool.out");
  int rc = std::system(("promtool check metrics < " + in + " > " + out + " 2>&1").c_str());
  std::ifstream f(out);
  std::string output((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  return {rc, output};
}

}  // namespace

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

TEST_CASE("a histogram's buckets are cumulative and end in +Inf", "[operator][metrics]") {
  MetricsRegistry r;
  r.defineHistogram("wait_seconds", "Waits.", {1, 10});
  // 0.5 -> le 1; 5 -> le 10; 50 -> only +Inf.
  for (double v : {0.5, 5.0, 50.0}) r.observe("wait_seconds", {{"queue", "a"}}, v);
  auto text = r.render();
  CHECK_THAT(text, Catch::Contains("wait_seconds_bucket{queue=\"a\",le=\"1\"} 1\n"));
  CHECK_THAT(text, Catch::Contains("wait_seconds_bucket{queue=\"a\",le=\"10\"} 2\n"));
  CHECK_THAT(text, Catch::Contains("wait_seconds_bucket{queue=\"a\",le=\"+Inf\"} 3\n"));
  CHECK_THAT(text, Catch::Contains("wait_seconds_sum{queue=\"a\"} 55.5\n"));
  CHECK_THAT(text, Catch::Contains("wait_seconds_count{queue=\"a\"} 3\n"));
  CHECK(promtoolCheck(text).first == 0);
}

TEST_CASE("label values are escaped and counters only grow", "[operator][metrics]") {
  MetricsRegistry r;
  r.defineCounter("events_total", "Events.");
  r.add("events_total", {{"msg", "a \"quoted\"\nline\\"}}, 2);
  r.add("events_total", {{"msg", "a \"quoted\"\nline\\"}});
  CHECK(r.value("events_total", {{"msg", "a \"quoted\"\nline\\"}}) == 3);
  CHECK_THAT(r.render(), Catch::Contains(R"(events_total{msg="a \"quoted\"\nline\\"} 3)"));
  CHECK(promtoolCheck(r.render()).first == 0);
}
