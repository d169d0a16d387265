#include <catch2/catch.hpp>

#include "test/queueing/builders.h"
#include "test/queueing/scenario.h"

namespace troupe::queueing {
namespace {

using namespace testing;

// Four 8-GPU nodes, two queues guaranteed 16 GPUs each. Team b runs four 8-GPU gangs.
Engine clusterFullOfTeamB(QueueBuilder a = queue("a").guaranteedGpus(16),
                          QueueBuilder b = queue("b").guaranteedGpus(16)) {
  Engine e = engineWith(rackOfNodes("n", 4, 4), {a, b});
  REQUIRE(e.addRunning(runningOn(gang("b-old").queue("b").gpus(8).priority(1), {"n-0"}, 0)).ok());
  REQUIRE(e.addRunning(runningOn(gang("b-low").queue("b").gpus(8).priority(0), {"n-1"}, 10)).ok());
  REQUIRE(e.addRunning(runningOn(gang("b-new").queue("b").gpus(8).priority(1), {"n-2"}, 50)).ok());
  REQUIRE(e.addRunning(runningOn(gang("b-mid").queue("b").gpus(8).priority(1), {"n-3"}, 30)).ok());
  return e;
}

TEST_CASE("a queue under its fair share reclaims from one above it, cheapest victim first",
          "[queueing][preemption][reclaim]") {
  Engine e = clusterFullOfTeamB();
  REQUIRE(e.submit(gang("a-1").queue("a").gpus(8).submittedAt(90)).ok());
  const Decisions d = e.schedule(100);
  // Demand a = 8, b = 32; fair shares a 8, b 24. b holds 32: 32/24 = 1.33 > 1.
  // a after admission: 8/8 = 1 <= b after losing 8: 24/24 = 1. Allowed.
  // Victim: lowest priority first: b-low (priority 0).
  CHECK(preempted(d) == std::set<std::string>{"b-low"});
  REQUIRE(admitted(d, "a-1"));
  CHECK(d.preemptions[0].preemptor == "a-1");
  CHECK(d.preemptions[0].reason == PreemptionReason::Reclaim);
  CHECK(admissionOf(d, "a-1")->pods[0].node == "n-1");
  CHECK(e.isPending("b-low"));
  SECTION("and the victim does not reclaim back: the next cycles change nothing") {
    // b: 24/24 = 1, a: 8/8 = 1. b-low would take b to 32/24: over its fair share.
    for (Seconds t = 101; t < 110; ++t) CHECK(e.schedule(t).empty());
    CHECK(reasonOf(e, "b-low") != PendingReason::Preempted);
  }
}

TEST_CASE("among equal priorities the victim is the one that loses least run time",
          "[queueing][preemption][reclaim]") {
  Engine e = clusterFullOfTeamB();
  REQUIRE(e.remove("b-low").ok());
  REQUIRE(e.addRunning(runningOn(gang("b-low").queue("b").gpus(8).priority(1), {"n-1"}, 10)).ok());
  REQUIRE(e.submit(gang("a-1").queue("a").gpus(8).submittedAt(90)).ok());
  const Decisions d = e.schedule(100);
  // All priority 1; run times at t=100: b-old 100, b-low 90, b-mid 70, b-new 50.
  CHECK(preempted(d) == std::set<std::string>{"b-new"});
}

TEST_CASE("a queue under its fair share takes back borrowed capacity before evicting its own work",
          "[queueing][preemption][reclaim]") {
  // Team a runs a low-priority gang within its guarantee; team b borrows the rest. A
  // high-priority gang of team a could make room either way: evicting a's own low gang
  // (within the queue) or taking back from b, which is above its fair share. Taking back
  // is what the fair share asks for; evicting a-low would only send it to reclaim from b
  // in turn.
  Engine e = engineWith(rackOfNodes("n", 4, 4),
                        {queue("a").guaranteedGpus(16), queue("b").guaranteedGpus(16)});
  REQUIRE(e.addRunning(runningOn(gang("a-low").queue("a").gpus(8).priority(0), {"n-0"}, 0)).ok());
  REQUIRE(e.addRunning(runningOn(gang("b-1").queue("b").gpus(8).priority(1), {"n-1"}, 0)).ok());
  REQUIRE(e.addRunning(runningOn(gang("b-2").queue("b").gpus(8).priority(1), {"n-2"}, 10)).ok());
  REQUIRE(e.addRunning(runningOn(gang("b-3").queue("b").gpus(8).priority(1), {"n-3"}, 20)).ok());
  REQUIRE(e.submit(gang("a-high").queue("a").gpus(8).priority(2).submittedAt(90)).ok());
  const Decisions d = e.schedule(100);
  // Demand a = 16, b = 24; fair shares a 16, b 16: b holds 24 of 16.
  CHECK(preempted(d) == std::set<std::string>{"b-3"});
  REQUIRE(d.preemptions.size() == 1);
  CHECK(d.preemptions[0].reason == PreemptionReason::Reclaim);
  CHECK(admitted(d, "a-high"));
  CHECK(e.isRunning("a-low"));
}

TEST_CASE("reclaim: false keeps a queue from reclaiming", "[queueing][preemption][reclaim]") {
  Engine e = clusterFullOfTeamB(queue("a").guaranteedGpus(16).noReclaim());
  REQUIRE(e.submit(gang("a-1").queue("a").gpus(8).submittedAt(90)).ok());
  const Decisions d = e.schedule(100);
  CHECK(d.preemptions.empty());
  CHECK(reasonOf(e, "a-1") == PendingReason::NoPlacement);
}

TEST_CASE("minRuntimeSeconds protects a victim until it has run that long",
          "[queueing][preemption][reclaim]") {
  Engine e = clusterFullOfTeamB(queue("a").guaranteedGpus(16),
                                queue("b").guaranteedGpus(16).minRuntime(200));
  REQUIRE(e.submit(gang("a-1").queue("a").gpus(8).submittedAt(90)).ok());
  // At t=100 the oldest b gang has run 100 s < 200: all protected.
  Decisions d = e.schedule(100);
  CHECK(d.preemptions.empty());
  CHECK(reasonOf(e, "a-1") == PendingReason::WaitingForReclaim);
  // At t=205: b-old (205 s) and b-low (195 s)... only b-old has run 200 s.
  d = e.schedule(205);
  CHECK(preempted(d) == std::set<std::string>{"b-old"});
}

TEST_CASE("preemptible: false is never a victim", "[queueing][preemption][reclaim]") {
  Engine e = engineWith(rackOfNodes("n", 2, 2),
                        {queue("a").guaranteedGpus(8), queue("b").guaranteedGpus(8)});
  REQUIRE(e.addRunning(runningOn(gang("b-1").queue("b").gpus(8).notPreemptible(), {"n-0"})).ok());
  REQUIRE(e.addRunning(runningOn(gang("b-2").queue("b").gpus(8).notPreemptible(), {"n-1"})).ok());
  REQUIRE(e.submit(gang("a-1").queue("a").gpus(8).submittedAt(1)).ok());
  const Decisions d = e.schedule(10);
  CHECK(d.preemptions.empty());
  CHECK(reasonOf(e, "a-1") == PendingReason::WaitingForReclaim);
}

TEST_CASE("within a queue a higher priority gang preempts a lower one",
          "[queueing][preemption][within-queue]") {
  auto scenario = [](QueueBuilder q) {
    Engine e = engineWith(rackOfNodes("n", 1, 1), {q});
    REQUIRE(e.addRunning(runningOn(gang("low").queue("a").gpus(8).priority(0), {"n-0"})).ok());
    REQUIRE(e.submit(gang("high").queue("a").gpus(8).priority(5).submittedAt(1)).ok());
    return e;
  };
  SECTION("withinQueue: LowerPriority") {
    Engine e = scenario(queue("a"));
    const Decisions d = e.schedule(10);
    CHECK(preempted(d) == std::set<std::string>{"low"});
    CHECK(d.preemptions[0].reason == PreemptionReason::WithinQueue);
    CHECK(admitted(d, "high"));
  }
  SECTION("withinQueue: Never") {
    Engine e = scenario(queue("a").noWithinQueuePreemption());
    const Decisions d = e.schedule(10);
    CHECK(d.preemptions.empty());
    CHECK_FALSE(admitted(d, "high"));
  }
  SECTION("equal priority never preempts") {
    Engine e = engineWith(rackOfNodes("n", 1, 1), {queue("a")});
    REQUIRE(e.addRunning(runningOn(gang("low").queue("a").gpus(8).priority(5), {"n-0"})).ok());
    REQUIRE(e.submit(gang("high").queue("a").gpus(8).priority(5).submittedAt(1)).ok());
    CHECK(e.schedule(10).preemptions.empty());
  }
}

TEST_CASE("an elastic victim is shrunk to its minimum before anyone is evicted",
          "[queueing][preemption][elastic]") {
  // b runs one elastic gang of 2..4 pods x 8 GPUs on all four nodes.
  Engine e = engineWith(rackOfNodes("n", 4, 4),
                        {queue("a").guaranteedGpus(16), queue("b").guaranteedGpus(16)});
  RunningGang r =
      runningOn(gang("b-elastic").queue("b").gpus(8).elastic(2, 4), {"n-0", "n-1", "n-2", "n-3"});
  REQUIRE(e.addRunning(r).ok());
  REQUIRE(e.submit(gang("a-1").queue("a").gpus(8).pods(1).submittedAt(1)).ok());
  const Decisions d = e.schedule(10);
  // Demand a 8, b 32: fair shares 8 and 24. b gives back one pod (8 GPUs), no eviction.
  CHECK(d.preemptions.empty());
  REQUIRE(d.resizes.size() == 1);
  CHECK(d.resizes[0].gang == "b-elastic");
  CHECK(d.resizes[0].pod_set_counts == std::vector<std::int32_t>{3});
  CHECK(d.resizes[0].removed.size() == 1);
  CHECK(d.resizes[0].preemptor == "a-1");
  CHECK(admitted(d, "a-1"));
}

TEST_CASE("victims that do not help are left alone", "[queueing][preemption]") {
  // n-0: b-cheap (4 GPUs, just started) and c-keep (4 GPUs, queue c within its share).
  // n-1: b-dear (8 GPUs, older). a needs 8 GPUs on one node: evicting b-cheap frees only 4
  // on n-0, so b-dear must go; b-cheap is then not needed and stays.
  Engine e = engineWith(
      rackOfNodes("n", 2, 2),
      {queue("a").guaranteedGpus(8), queue("b").guaranteedGpus(0), queue("c").guaranteedGpus(4)});
  RunningGang cheap = runningOn(gang("b-cheap").queue("b").gpus(4), {"n-0"}, 50);
  RunningGang keep = runningOn(gang("c-keep").queue("c").gpus(4), {"n-0"}, 0);
  keep.pods[0].gpus = {4, 5, 6, 7};
  REQUIRE(e.addRunning(cheap).ok());
  REQUIRE(e.addRunning(keep).ok());
  REQUIRE(e.addRunning(runningOn(gang("b-dear").queue("b").gpus(8), {"n-1"}, 0)).ok());
  REQUIRE(e.submit(gang("a-1").queue("a").gpus(8).submittedAt(60)).ok());
  const Decisions d = e.schedule(100);
  CHECK(preempted(d) == std::set<std::string>{"b-dear"});
  CHECK(admitted(d, "a-1"));
}

TEST_CASE("a queue that would end above its fair share may not reclaim",
          "[queueing][preemption][reclaim]") {
  // a is guaranteed 8 and already holds 8; its second gang would take it to 16/8 = 2.
  Engine e = clusterFullOfTeamB(queue("a").guaranteedGpus(8), queue("b").guaranteedGpus(24));
  REQUIRE(e.remove("b-new").ok());
  REQUIRE(e.addRunning(runningOn(gang("a-0").queue("a").gpus(8), {"n-2"})).ok());
  REQUIRE(e.submit(gang("a-1").queue("a").gpus(8).submittedAt(90)).ok());
  const Decisions d = e.schedule(100);
  // Demand a 16, b 24: shares a 8, b 24: b holds 24 = 1.0, not above. Nothing to reclaim.
  CHECK(d.preemptions.empty());
  CHECK(reasonOf(e, "a-1") == PendingReason::NoPlacement);
}

}  // namespace
}  // namespace troupe::queueing

namespace troupe::queueing {
namespace {

using namespace testing;

TEST_CASE("a gang admitted in a cycle is never a victim in that same cycle",
          "[queueing][preemption][reclaim]") {
  // Two 8-GPU nodes. Team a (guaranteed 8) ran a lot lately, so the borrower b is offered
  // the free capacity first and fills both nodes; then a's gang, within its guarantee,
  // would reclaim one of the gangs b was just given.
  Engine e =
      engineWith(rackOfNodes("n", 2, 2), {queue("a").guaranteedGpus(8).usageGpus(16), queue("b")});
  REQUIRE(e.submit(gang("b-1").queue("b").gpus(8).submittedAt(0)).ok());
  REQUIRE(e.submit(gang("b-2").queue("b").gpus(8).submittedAt(1)).ok());
  REQUIRE(e.submit(gang("a-1").queue("a").gpus(8).submittedAt(2)).ok());
  const Decisions first = e.schedule(10);
  for (const auto& p : first.preemptions) {
    INFO(p.gang << " admitted and preempted in one cycle");
    CHECK_FALSE(admitted(first, p.gang));
  }
  for (const auto& r : first.resizes) {
    INFO(r.gang << " admitted and shrunk in one cycle");
    CHECK_FALSE(admitted(first, r.gang));
  }
  CHECK(e.isRunning("b-1"));
  CHECK(e.isRunning("b-2"));
  SECTION("the next cycle reclaims one of them, since both run by then") {
    const Decisions next = e.schedule(11);
    CHECK(preempted(next).size() == 1);
    CHECK(admitted(next, "a-1"));
  }
}

}  // namespace
}  // namespace troupe::queueing
