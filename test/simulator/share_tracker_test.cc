#include "simulator/share_tracker.h"

#include <catch2/catch.hpp>

namespace troupe::simulator {
namespace {

TEST_CASE("the guaranteed-share ratio counts only moments with enough demand",
          "[simulator][shares]") {
  // Queue 0 is guaranteed 8, queue 1 is guaranteed 4, queue 2 nothing.
  ShareTracker shares({8, 4, 0});
  // t=0: q0 demands 6 < 8 and holds 2: not enough demand, no ratio.
  shares.observe(0, {2, 4, 0}, {6, 4, 0});
  CHECK(shares.minGuaranteedRatio() == 1.0);
  // t=10: q0 demands 10 >= 8 and holds 6: ratio 6/8 = .75.
  shares.observe(10, {6, 4, 10}, {10, 4, 30});
  CHECK(shares.minGuaranteedRatio() == Approx(0.75));
  CHECK(shares.minRatioQueue() == 0);
  CHECK(shares.minRatioTime() == 10);
  // t=20: q0 holds 12 > 8: capped at 1, the minimum stays.
  shares.observe(20, {12, 4, 0}, {12, 4, 0});
  shares.finish(30);
  CHECK(shares.minGuaranteedRatio() == Approx(0.75));
  // Below guarantee with enough demand only during [10, 20).
  CHECK(shares.secondsBelowGuarantee() == 10);
}

TEST_CASE("Jain's index is over each guaranteed queue's mean satisfaction", "[simulator][shares]") {
  ShareTracker shares({8, 8});
  // [0,10): q0 holds 8 of 8 owed (1.0); q1 holds 2 of min(8, 4) = 4 owed (.5).
  shares.observe(0, {8, 2}, {8, 4});
  // [10,20): both fully served.
  shares.observe(10, {8, 4}, {16, 4});
  shares.finish(20);
  // q0 mean 1.0; q1 mean (0.5*10 + 1*10)/20 = .75.
  CHECK(shares.averageSatisfaction(0) == Approx(1.0));
  CHECK(shares.averageSatisfaction(1) == Approx(0.75));
  // Jain = (1 + .75)^2 / (2 * (1 + .5625)) = 3.0625 / 3.125 = .98.
  CHECK(shares.jainFairness() == Approx(0.98));
}

}  // namespace
}  // namespace troupe::simulator
