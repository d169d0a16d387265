// kueue (CohortQuotaPolicy): quota reserved for a whole gang at admission, pods placed after.
#include <catch2/catch.hpp>

#include "test/queueing/builders.h"
#include "test/queueing/scenario.h"

namespace troupe::queueing {
namespace {

using namespace testing;

Policy kueue() {
  Policy p;
  p.kind = PolicyKind::Kueue;
  return p;
}

// Two 8-GPU nodes; ClusterQueues a and b of nominal quota 8 GPUs each in one cohort (their
// parent). a runs r1 (4 GPUs on n-0), b runs r2 (4 GPUs on n-1): 4 GPUs free on each node.
Engine halfFullCohort(Policy policy) {
  Engine e =
      engineWith(rackOfNodes("n", 2, 2),
                 {queue("cohort").guaranteedGpus(16), queue("a").parent("cohort").guaranteedGpus(8),
                  queue("b").parent("cohort").guaranteedGpus(8)},
                 std::move(policy));
  REQUIRE(e.addRunning(runningOn(gang("r1").queue("a").gpus(4), {"n-0"}, 0)).ok());
  REQUIRE(e.addRunning(runningOn(gang("r2").queue("b").gpus(4), {"n-1"}, 0)).ok());
  return e;
}

TEST_CASE("kueue admits a gang by quota that no node can hold, and it keeps the quota",
          "[queueing][peer-policies]") {
  Engine e = halfFullCohort(kueue());
  // big asks one pod of 8 GPUs. Quota: a uses 4, 4 + 8 = 12 > 8 nominal, so it borrows;
  // the cohort uses 8 of 16, 8 + 8 = 16 <= 16: admitted. No node has 8 free GPUs (4 and 4),
  // so its pod waits, and the quota stays reserved.
  REQUIRE(e.submit(gang("big").queue("a").gpus(8).submittedAt(10)).ok());
  Decisions d = e.schedule(10);
  CHECK_FALSE(admitted(d, "big"));
  CHECK(reasonOf(e, "big") == PendingReason::NoPlacement);

  // small asks 4 GPUs, which either node has free. Quota: a would use 12 + 4 = 16 > 8 and
  // the cohort 16 + 4 = 20 > 16; a may not reclaim from b (a would stay above its nominal
  // quota), and nothing in a has a lower priority: it waits on quota, 8 GPUs idle.
  REQUIRE(e.submit(gang("small").queue("a").gpus(4).submittedAt(20)).ok());
  d = e.schedule(20);
  CHECK_FALSE(admitted(d, "small"));
  CHECK(reasonOf(e, "small") == PendingReason::QueueAtLimit);
  CHECK(preempted(d).empty());

  // r2 ends: n-1 has 8 GPUs free, and big's pod is placed with the quota it held. Then the
  // cohort uses 4 + 8 = 12, and small fits in it (12 + 4 <= 16) and on n-0's 4 free GPUs.
  REQUIRE(e.remove("r2").ok());
  d = e.schedule(30);
  CHECK(admitted(d, "big"));
  CHECK(admitted(d, "small"));
}

TEST_CASE("under the troupe policy the same small gang runs on the idle GPUs",
          "[queueing][peer-policies]") {
  Engine e = halfFullCohort(Policy{});
  REQUIRE(e.submit(gang("big").queue("a").gpus(8).submittedAt(10)).ok());
  REQUIRE(e.submit(gang("small").queue("a").gpus(4).submittedAt(20)).ok());
  Decisions d = e.schedule(20);
  CHECK_FALSE(admitted(d, "big"));
  CHECK(admitted(d, "small"));
}

TEST_CASE("kueue reclaims quota a cohort member borrowed, the most recently admitted first",
          "[queueing][peer-policies]") {
  Engine e = halfFullCohort(kueue());
  REQUIRE(e.submit(gang("big").queue("a").gpus(8).submittedAt(10)).ok());
  Decisions d = e.schedule(10);
  REQUIRE(reasonOf(e, "big") == PendingReason::NoPlacement);  // holds 8 of quota, as above
  // b asks 4: b uses 4, 4 + 4 = 8 <= its nominal 8, but the cohort is full (16 + 4 > 16).
  // b stays within its nominal quota, so it may reclaim from a, which uses 12 > 8:
  // candidates big (admitted at 10) and r1 (started at 0), the most recent first. Without
  // big, the cohort uses 8, 8 + 4 <= 16: big alone loses its quota, r1 keeps running.
  REQUIRE(e.submit(gang("b2").queue("b").gpus(4).submittedAt(20)).ok());
  d = e.schedule(20);
  CHECK(admitted(d, "b2"));
  CHECK(preempted(d).empty());  // big held quota, not GPUs
  CHECK(reasonOf(e, "big") == PendingReason::Preempted);
}

TEST_CASE("kueue reclaims no gang in the cycle that admitted it, but in the next",
          "[queueing][peer-policies]") {
  Engine e =
      engineWith(rackOfNodes("n", 2, 2),
                 {queue("cohort").guaranteedGpus(16), queue("a").parent("cohort").guaranteedGpus(8),
                  queue("b").parent("cohort").guaranteedGpus(8)},
                 kueue());
  REQUIRE(e.submit(gang("a1").queue("a").gpus(8).submittedAt(1)).ok());
  REQUIRE(e.submit(gang("a2").queue("a").gpus(8).submittedAt(2)).ok());
  // b's first two gangs ask 16 GPUs (over b's nominal 8, so no reclaim for them) and wait;
  // b1 becomes b's head only in the third round of the cycle.
  REQUIRE(e.submit(gang("b-wide").queue("b").gpus(8).pods(2).submittedAt(3)).ok());
  REQUIRE(e.submit(gang("b-wider").queue("b").gpus(8).pods(2).submittedAt(4)).ok());
  REQUIRE(e.submit(gang("b1").queue("b").gpus(8).submittedAt(5)).ok());
  // Round 1: a1 (within a's nominal 8) is admitted. Round 2: a2 borrows b's unused quota
  // (a: 8 + 8 = 16 > 8; the cohort: 8 + 8 = 16 <= 16) and is admitted. Round 3: b1 (b: 0 + 8
  // <= 8) finds the cohort full; a2 is above a's nominal quota, but was admitted in this
  // very cycle: no victim now.
  Decisions d = e.schedule(10);
  CHECK(admitted(d, "a1"));
  CHECK(admitted(d, "a2"));
  CHECK(preempted(d).empty());
  CHECK(reasonOf(e, "b1") == PendingReason::QueueAtLimit);
  // The next cycle reclaims one of a's gangs for b1: a1 and a2 were admitted at the same
  // moment, so the most recently admitted is the first by name; without it a uses 8, its
  // nominal quota, and the cohort 8 + 8 = 16.
  d = e.schedule(20);
  CHECK(preempted(d) == std::set<std::string>{"a1"});
  CHECK(admitted(d, "b1"));
}

}  // namespace
}  // namespace troupe::queueing
