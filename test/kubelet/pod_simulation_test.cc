#include <catch2/catch.hpp>

#include "kubelet/pod_simulation.h"

using namespace troupe::kubelet;
using json = nlohmann::json;

namespace {

json podWith(json annotations) {
  return {{"metadata", {{"name", "p"}, {"annotations", annotations}}}};
}

PodSimulation sim(double start, std::optional<double> duration, int exit_code, double termination) {
  PodSimulation s;
  s.start_seconds = start;
  s.duration_seconds = duration;
  s.exit_code = exit_code;
  s.termination_seconds = termination;
  return s;
}

}  // namespace

TEST_CASE("a pod's annotations say how its simulated containers behave",
          "[kubelet][pod-simulation]") {
  struct Case {
    std::string name;
    json annotations;
    PodSimulation want;
  };
  std::vector<Case> cases = {
      {"no annotations: start after 1 s, run until deleted, stop in 1 s", json::object(),
       PodSimulation{}},
      {"a duration ends the run", {{"troupe.dev/sim-duration-seconds", "90"}}, sim(1, 90, 0, 1)},
      {"decimal durations and a failing exit code",
       {{"troupe.dev/sim-duration-seconds", "0.25"}, {"troupe.dev/sim-exit-code", "3"}},
       sim(1, 0.25, 3, 1)},
      {"start and termination times can be set",
       {{"troupe.dev/sim-start-seconds", "5"}, {"troupe.dev/sim-termination-seconds", "20"}},
       sim(5, std::nullopt, 0, 20)},
      {"a zero duration exits at once",
       {{"troupe.dev/sim-duration-seconds", "0"}},
       sim(1, 0, 0, 1)},
      {"exit code 255 is the largest",
       {{"troupe.dev/sim-exit-code", "255"}},
       sim(1, std::nullopt, 255, 1)},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto sim = readPodSimulation(podWith(tc.annotations));
      REQUIRE(sim);
      CHECK(*sim == tc.want);
    }
  }
}

TEST_CASE("an invalid simulation annotation is an error naming the annotation and the rule",
          "[kubelet][pod-simulation]") {
  struct Case {
    std::string name;
    json annotations;
    std::string want_field;
    std::string want_rule;
  };
  std::vector<Case> cases = {
      {"words for a duration",
       {{"troupe.dev/sim-duration-seconds", "ten"}},
       "metadata.annotations[troupe.dev/sim-duration-seconds]",
       "decimal number of seconds"},
      {"a negative duration",
       {{"troupe.dev/sim-duration-seconds", "-1"}},
       "metadata.annotations[troupe.dev/sim-duration-seconds]",
       "decimal number of seconds"},
      {"trailing text",
       {{"troupe.dev/sim-start-seconds", "5s"}},
       "metadata.annotations[troupe.dev/sim-start-seconds]",
       "decimal number of seconds"},
      {"an empty termination time",
       {{"troupe.dev/sim-termination-seconds", ""}},
       "metadata.annotations[troupe.dev/sim-termination-seconds]",
       "decimal number of seconds"},
      {"an exit code above 255",
       {{"troupe.dev/sim-exit-code", "256"}},
       "metadata.annotations[troupe.dev/sim-exit-code]",
       "integer from 0 to 255"},
      {"a fractional exit code",
       {{"troupe.dev/sim-exit-code", "1.5"}},
       "metadata.annotations[troupe.dev/sim-exit-code]",
       "integer from 0 to 255"},
      {"infinity",
       {{"troupe.dev/sim-duration-seconds", "inf"}},
       "metadata.annotations[troupe.dev/sim-duration-seconds]",
       "decimal number of seconds"},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto sim = readPodSimulation(podWith(tc.annotations));
      REQUIRE_FALSE(sim);
      CHECK(sim.error().field_path == tc.want_field);
      CHECK(sim.error().message.find(tc.want_rule) != std::string::npos);
    }
  }
}
