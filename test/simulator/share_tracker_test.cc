#include "simulator/share_tracker.h"

#include <catch2/catch.hpp>

namespace troupe::simulator {
namespace {

TEST_CASE("a queue's deficit is what it is owed of its guarantee and does not hold",
          "[simulator][shares]") {
  // Queue 0 is guaranteed 8, queue 1 is guaranteed 4, queue 2 nothing.
  ShareTracker shares({8, 4, 0});
  // [0,10): q0 owed 6 (its gangs add up to 6), holds 2: deficit 4, ratio 2/6.
  shares.observe(0, {2, 4, 0}, {6, 4, 0});
  CHECK(shares.minGuaranteedRatio() == Approx(2.0 / 6));
  CHECK(shares.minRatioQueue() == 0);
  // [10,20): q0 owed 8, holds 6: deficit 2; q1 owed 4, holds 1: deficit 3.
  shares.observe(10, {6, 1, 10}, {8, 4, 0});
  // [20,30): q0 holds 12 > 8 owed (borrowing): no deficit, ratio capped at 1.
  shares.observe(20, {12, 4, 0}, {8, 4, 0});
  shares.finish(30);
  // q0: 4 * 10 + 2 * 10 = 60 GPU-s; q1: 3 * 10 = 30.
  CHECK(shares.deficitGpuSeconds(0) == Approx(60));
  CHECK(shares.deficitGpuSeconds(1) == Approx(30));
  CHECK(shares.deficitGpuSeconds(2) == Approx(0));
  CHECK(shares.totalDeficitGpuSeconds() == Approx(90));
  // q1's ratio 1/4 at t=10 is the worst.
  CHECK(shares.minGuaranteedRatio() == Approx(0.25));
  CHECK(shares.minRatioQueue() == 1);
  CHECK(shares.minRatioTime() == 10);
  // q0's worst moment is t=0 (deficit 4); the cluster's is t=10 (2 + 3 = 5 > 4).
  CHECK(shares.worstMoment(0).time_s == 0);
  CHECK(shares.worstMoment(0).deficit_gpus == 4);
  CHECK(shares.worstMoment(0).owed_gpus == 6);
  CHECK(shares.worstMoment(0).held_gpus == 2);
  CHECK(shares.worstMoment().time_s == 10);
  CHECK(shares.worstMoment().deficit_gpus == 5);
  CHECK(shares.worstMoment().owed_gpus == 12);
  CHECK(shares.worstMoment().held_gpus == 7);
  CHECK(shares.worstMoment(2).time_s == -1);
  // Some queue held less than it was owed during [0, 20).
  CHECK(shares.secondsBelowGuarantee() == 20);
}

TEST_CASE("Jain's index is over each owed queue's mean satisfaction", "[simulator][shares]") {
  ShareTracker shares({8, 8});
  // [0,10): q0 holds 8 of 8 owed (1.0); q1 holds 2 of 4 owed (.5).
  shares.observe(0, {8, 2}, {8, 4});
  // [10,20): both fully served.
  shares.observe(10, {8, 4}, {8, 4});
  shares.finish(20);
  // q0 mean 1.0; q1 mean (0.5*10 + 1*10)/20 = .75.
  CHECK(shares.averageSatisfaction(0) == Approx(1.0));
  CHECK(shares.averageSatisfaction(1) == Approx(0.75));
  // Jain = (1 + .75)^2 / (2 * (1 + .5625)) = 3.0625 / 3.125 = .98.
  CHECK(shares.jainFairness() == Approx(0.98));
}

}  // namespace
}  // namespace troupe::simulator
