#include <catch2/catch.hpp>

#include "common/metrics_registry.h"
#include "test/support/promtool.h"

using troupe::MetricsRegistry;
using troupe::testing::promtoolCheck;

TEST_CASE("a histogram's buckets are cumulative and end in +Inf", "[common][metrics]") {
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

TEST_CASE("label values are escaped and counters only grow", "[common][metrics]") {
  MetricsRegistry r;
  r.defineCounter("events_total", "Events.");
  r.add("events_total", {{"msg", "a \"quoted\"\nline\\"}}, 2);
  r.add("events_total", {{"msg", "a \"quoted\"\nline\\"}});
  CHECK(r.value("events_total", {{"msg", "a \"quoted\"\nline\\"}}) == 3);
  CHECK_THAT(r.render(), Catch::Contains(R"(events_total{msg="a \"quoted\"\nline\\"} 3)"));
  CHECK(promtoolCheck(r.render()).first == 0);
}
