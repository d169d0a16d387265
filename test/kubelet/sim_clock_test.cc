#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "kubelet/sim_clock.h"

using namespace troupe;
using namespace troupe::kubelet;
using std::chrono::milliseconds;

TEST_CASE("simulated durations divide by the speed factor, in wall-clock milliseconds",
          "[kubelet][sim-clock]") {
  struct Case {
    std::string name;
    double speed;
    double sim_seconds;
    milliseconds want;
  };
  std::vector<Case> cases = {
      {"real time: 2.5 s takes 2500 ms", 1, 2.5, milliseconds(2500)},
      {"ten times faster: 30 s takes 30/10 = 3 s", 10, 30, milliseconds(3000)},
      {"a thousand times faster: one hour takes 3600/1000 = 3.6 s", 1000, 3600, milliseconds(3600)},
      {"slower than real time: 1 s at 0.5 takes 2 s", 0.5, 1, milliseconds(2000)},
      {"rounded to the millisecond: 1 s / 3 = 333.33 ms -> 333 ms", 3, 1, milliseconds(333)},
      {"zero stays zero", 100, 0, milliseconds(0)},
      {"a negative duration is no time at all", 1, -5, milliseconds(0)},
      {"ten years at speed 1 does not overflow", 1, 315360000, milliseconds(315360000000)},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto speed = SimSpeed::parse(tc.speed);
      REQUIRE(speed);
      CHECK(speed->wallTime(tc.sim_seconds) == tc.want);
    }
  }
}

TEST_CASE("a speed factor outside 0.001..100000 is refused with the flag and the rule",
          "[kubelet][sim-clock]") {
  for (double bad :
       {0.0, -1.0, 0.0001, 1e6, std::numeric_limits<double>::infinity(), std::nan("")}) {
    DYNAMIC_SECTION("speed " << bad) {
      auto speed = SimSpeed::parse(bad);
      REQUIRE_FALSE(speed);
      CHECK(speed.error().field_path == "--sim-speed");
      CHECK(speed.error().message.find("must be a number from 0.001 to 100000") !=
            std::string::npos);
    }
  }
}
