// Terminating pods: deleted, their containers possibly still running. They hold their
// nodes' resources and GPUs until the caller removes them, are never preemption victims,
// and a gang that fits once they are gone waits for them instead of preempting others.
#include <catch2/catch.hpp>

#include "test/queueing/builders.h"
#include "test/queueing/scenario.h"

namespace troupe::queueing {
namespace {

using namespace testing;

// The gang with every pod terminating (deleted, its grace period running).
RunningGang terminating(RunningGang r) {
  for (auto& p : r.pods) p.terminating = true;
  return r;
}

// The same gang with the pods at these indexes terminating.
RunningGang terminatingPods(RunningGang r, const std::vector<std::size_t>& indexes) {
  for (std::size_t i : indexes) r.pods[i].terminating = true;
  return r;
}

bool placedOn(const Decisions& d, const std::string& node) {
  for (const auto& a : d.admissions)
    for (const auto& p : a.pods)
      if (p.node == node) return true;
  for (const auto& r : d.resizes)
    for (const auto& p : r.added)
      if (p.node == node) return true;
  return false;
}

TEST_CASE("a gang waits for a terminating gang's GPUs and starts once it is gone",
          "[queueing][terminating]") {
  // Two nodes of 8 GPUs. team-a holds both: a1 on n-0 (being deleted), a2 on n-1.
  Engine e = engineWith(rackOfNodes("n", 2, 2),
                        {queue("team-a").guaranteedGpus(8), queue("team-b").guaranteedGpus(8)});
  REQUIRE(e.addRunning(terminating(runningOn(gang("a1").queue("team-a").gpus(8), {"n-0"}))).ok());
  REQUIRE(e.addRunning(runningOn(gang("a2").queue("team-a").gpus(8), {"n-1"})).ok());
  REQUIRE(e.submit(gang("b1").queue("team-b").gpus(8).submittedAt(5)).ok());

  // b1 fits once a1's pod is gone: it waits for that, and nothing is preempted for it
  // (team-a is above its fair share of 8, so a2 would otherwise be a victim).
  Decisions d = e.schedule(10);
  CHECK(d.preemptions.empty());
  CHECK(d.admissions.empty());
  auto why = e.explanation("b1");
  REQUIRE(why);
  CHECK(why->reason == PendingReason::WaitingForReclaim);
  CHECK(why->detail.find("a1") != std::string::npos);
  CHECK(why->detail.find("a2") == std::string::npos);
  // The terminating pod still counts in its queue's allocation: 8 + 8.
  CHECK(e.queueStatus("team-a")->allocated[kGpu] == 16);

  // Nothing changes while it terminates: no victim is chosen in later cycles either.
  d = e.schedule(20);
  CHECK(d.empty());
  CHECK(reasonOf(e, "b1") == PendingReason::WaitingForReclaim);

  // The pod is gone: b1 starts in the next cycle, on the GPUs a1 held.
  REQUIRE(e.remove("a1").ok());
  d = e.schedule(21);
  REQUIRE(admitted(d, "b1"));
  CHECK(nodesOf(*admissionOf(d, "b1")) == std::set<std::string>{"n-0"});
  CHECK(d.preemptions.empty());
}

TEST_CASE("a preemptor counts on terminating capacity and evicts only what it lacks",
          "[queueing][terminating][preemption]") {
  // Three nodes of 8 GPUs, all team-a's: a1 on n-0 terminates, a2 and a3 run. team-b,
  // guaranteed 16, wants 16: a1's 8 come back by themselves, one victim makes up the rest.
  Engine e = engineWith(rackOfNodes("n", 3, 3),
                        {queue("team-a").guaranteedGpus(8), queue("team-b").guaranteedGpus(16)});
  REQUIRE(e.addRunning(terminating(runningOn(gang("a1").queue("team-a").gpus(8), {"n-0"}))).ok());
  REQUIRE(e.addRunning(runningOn(gang("a2").queue("team-a").gpus(8), {"n-1"}, 1)).ok());
  REQUIRE(e.addRunning(runningOn(gang("a3").queue("team-a").gpus(8), {"n-2"}, 2)).ok());
  REQUIRE(e.submit(gang("b1").queue("team-b").gpus(8).pods(2).submittedAt(5)).ok());

  Decisions d = e.schedule(10);
  // One victim, never the terminating a1 (a3 started last: less run time lost).
  CHECK(preempted(d) == std::set<std::string>{"a3"});
  // b1's placement needs a1's GPUs, which a1's pod still holds: b1 is not admitted yet,
  // it waits for a1 and its victim.
  CHECK_FALSE(admitted(d, "b1"));
  auto why = e.explanation("b1");
  REQUIRE(why);
  CHECK(why->reason == PendingReason::WaitingForReclaim);
  CHECK(why->detail.find("a1") != std::string::npos);
  CHECK(why->detail.find("a3") != std::string::npos);
  // a3's capacity, freed in the engine's view, is held for b1 for the rest of the cycle:
  // nothing else was placed on it.
  CHECK_FALSE(placedOn(d, "n-2"));

  // The caller deleted a3's pod: it terminates too. b1 waits; nobody else is evicted.
  REQUIRE(e.remove("a3").ok());
  REQUIRE(
      e.addRunning(terminating(runningOn(gang("a3").queue("team-a").gpus(8), {"n-2"}, 2))).ok());
  d = e.schedule(11);
  CHECK(d.empty());
  CHECK(reasonOf(e, "b1") == PendingReason::WaitingForReclaim);

  // Both gone: b1 runs on their nodes.
  REQUIRE(e.remove("a1").ok());
  REQUIRE(e.remove("a3").ok());
  d = e.schedule(12);
  REQUIRE(admitted(d, "b1"));
  CHECK(nodesOf(*admissionOf(d, "b1")) == std::set<std::string>{"n-0", "n-2"});
  CHECK(d.preemptions.empty());
}

TEST_CASE("terminating capacity is counted on by one waiting gang a cycle",
          "[queueing][terminating]") {
  // a1 terminates on n-0; a2 runs on n-1. team-b wants both nodes, one gang each: b1
  // (first in its queue) waits for a1's GPUs, and b2, which may not count on them too,
  // reclaims a2's.
  Engine e =
      engineWith(rackOfNodes("n", 2, 2), {queue("team-a"), queue("team-b").guaranteedGpus(16)});
  REQUIRE(e.addRunning(terminating(runningOn(gang("a1").queue("team-a").gpus(8), {"n-0"}))).ok());
  REQUIRE(e.addRunning(runningOn(gang("a2").queue("team-a").gpus(8), {"n-1"})).ok());
  REQUIRE(e.submit(gang("b1").queue("team-b").gpus(8).submittedAt(1)).ok());
  REQUIRE(e.submit(gang("b2").queue("team-b").gpus(8).submittedAt(2)).ok());

  const Decisions d = e.schedule(10);
  CHECK(reasonOf(e, "b1") == PendingReason::WaitingForReclaim);
  CHECK(preempted(d) == std::set<std::string>{"a2"});
  REQUIRE(admitted(d, "b2"));
  CHECK(nodesOf(*admissionOf(d, "b2")) == std::set<std::string>{"n-1"});
}

TEST_CASE("a gang waiting for terminating pods keeps the free part of its room this cycle",
          "[queueing][terminating]") {
  // One node of 8 GPUs: a1 (4 GPUs, terminating) and 4 free. big (8 GPUs) comes first in
  // team-b and waits for a1; small (4 GPUs) comes after it and must not take the 4 free
  // GPUs big counts on.
  Engine e = engineWith({node("n").gpus(8)}, {queue("team-a"), queue("team-b").guaranteedGpus(8)});
  REQUIRE(e.addRunning(terminating(runningOn(gang("a1").queue("team-a").gpus(4), {"n"}))).ok());
  REQUIRE(e.submit(gang("big").queue("team-b").gpus(8).submittedAt(1)).ok());
  REQUIRE(e.submit(gang("small").queue("team-b").gpus(4).submittedAt(2)).ok());

  Decisions d = e.schedule(10);
  CHECK(d.empty());
  CHECK(reasonOf(e, "big") == PendingReason::WaitingForReclaim);
  CHECK(reasonOf(e, "small") == PendingReason::NoPlacement);
  // The same in the next cycle: what it holds is held afresh every cycle.
  d = e.schedule(11);
  CHECK(d.empty());

  REQUIRE(e.remove("a1").ok());
  d = e.schedule(12);
  CHECK(admitted(d, "big"));
  CHECK_FALSE(admitted(d, "small"));
}

TEST_CASE("an elastic gang that is shrinking is shrunk further only by its live pods",
          "[queueing][terminating][elastic]") {
  // el runs 4 pods of 8 GPUs on 4 nodes (minimum 1); its pods 2 and 3 are being deleted
  // (an earlier shrink). team-b, guaranteed 24, wants 24 GPUs.
  Engine e = engineWith(rackOfNodes("n", 4, 4),
                        {queue("team-a").guaranteedGpus(8), queue("team-b").guaranteedGpus(24)});
  REQUIRE(e.addRunning(terminatingPods(runningOn(gang("el").queue("team-a").gpus(8).elastic(1, 4),
                                                 {"n-0", "n-1", "n-2", "n-3"}),
                                       {2, 3}))
              .ok());

  SECTION("what terminates is all it needs: it waits, nothing more is taken") {
    REQUIRE(e.submit(gang("b1").queue("team-b").gpus(8).pods(2)).ok());
    const Decisions d = e.schedule(10);
    CHECK(d.empty());
    CHECK(reasonOf(e, "b1") == PendingReason::WaitingForReclaim);
  }
  SECTION("it needs one pod more: one live pod goes, never the gang, never below 1") {
    REQUIRE(e.submit(gang("b1").queue("team-b").gpus(8).pods(3)).ok());
    const Decisions d = e.schedule(10);
    CHECK(d.preemptions.empty());
    REQUIRE(d.resizes.size() == 1);
    CHECK(d.resizes[0].gang == "el");
    REQUIRE(d.resizes[0].removed.size() == 1);
    CHECK(d.resizes[0].removed[0].node == "n-1");
    CHECK_FALSE(d.resizes[0].removed[0].terminating);
    CHECK_FALSE(admitted(d, "b1"));  // n-2 and n-3 still terminate
    CHECK(reasonOf(e, "b1") == PendingReason::WaitingForReclaim);
  }
  SECTION("it needs more than the live surplus: nothing is evicted for it") {
    REQUIRE(e.submit(gang("b1").queue("team-b").gpus(8).pods(4)).ok());
    const Decisions d = e.schedule(10);
    CHECK(d.preemptions.empty());
    CHECK(d.resizes.empty());
    CHECK_FALSE(admitted(d, "b1"));
  }
}

TEST_CASE("a gang whose pods all terminate is neither a victim nor protected",
          "[queueing][terminating][preemption]") {
  // a1's pods all terminate on n-0 and a protected gang fills n-1: b1 (16 GPUs) cannot
  // get room and says so, without evicting a1 again.
  Engine e =
      engineWith(rackOfNodes("n", 2, 2), {queue("team-a"), queue("team-b").guaranteedGpus(16)});
  REQUIRE(e.addRunning(terminating(runningOn(gang("a1").queue("team-a").gpus(8), {"n-0"}))).ok());
  REQUIRE(
      e.addRunning(runningOn(gang("a2").queue("team-a").gpus(8).notPreemptible(), {"n-1"})).ok());
  REQUIRE(e.submit(gang("b1").queue("team-b").gpus(8).pods(2)).ok());
  const Decisions d = e.schedule(10);
  CHECK(d.empty());
  auto why = e.explanation("b1");
  REQUIRE(why);
  CHECK(why->reason == PendingReason::WaitingForReclaim);
  CHECK(why->detail.find("1 running gangs it could preempt are protected") != std::string::npos);
}

TEST_CASE("the engine holds terminating pods as the caller gave them", "[queueing][terminating]") {
  Engine e = engineWith({node("n").gpus(8)}, {queue("default")});
  const RunningGang r = terminatingPods(runningOn(gang("a").gpus(4).pods(2), {"n", "n"}), {1});
  REQUIRE(e.addRunning(r).ok());
  CHECK(e.holdsRunning(r));
  CHECK_FALSE(e.holdsRunning(terminating(r)));
  CHECK_FALSE(e.holdsRunning(runningOn(gang("a").gpus(4).pods(2), {"n", "n"})));
  REQUIRE(e.running("a"));
  CHECK(e.running("a")->pods == r.pods);
}

TEST_CASE("GPUs held by pods outside the engine are never given to a gang",
          "[queueing][placement]") {
  // A node of 8 GPUs whose GPUs 0 and 1 a pod of another scheduler holds: 6 are left.
  NodeSpec n = node("n").gpus(6);
  n.held_gpus = {0, 1};
  Engine e = engineWith({n}, {queue("default")});
  REQUIRE(e.submit(gang("six").gpus(6)).ok());
  REQUIRE(e.submit(gang("one").gpus(1).submittedAt(1)).ok());
  const Decisions d = e.schedule(0);
  REQUIRE(admitted(d, "six"));
  CHECK(admissionOf(d, "six")->pods[0].gpus == std::vector<int>{2, 3, 4, 5, 6, 7});
  CHECK_FALSE(admitted(d, "one"));

  NodeSpec bad = node("m").gpus(8);
  bad.held_gpus = {3, 3};
  CHECK_FALSE(e.upsertNode(bad).ok());
}

TEST_CASE("a node given again keeps the GPUs its pods hold, whatever it held besides",
          "[queueing][placement]") {
  // a runs on GPUs 0-3. The node is given once with those GPUs held outside the engine (a
  // caller that holds what a refused gang holds), then as it is: a's GPUs stay taken.
  Engine e = engineWith({node("n").gpus(8)}, {queue("default")});
  REQUIRE(e.addRunning(runningOn(gang("a").gpus(4), {"n"})).ok());
  NodeSpec held = node("n").gpus(4);
  held.held_gpus = {0, 1, 2, 3};
  REQUIRE(e.upsertNode(held).ok());
  REQUIRE(e.upsertNode(node("n").gpus(8)).ok());
  REQUIRE(e.submit(gang("b").gpus(4)).ok());
  const Decisions d = e.schedule(0);
  REQUIRE(admitted(d, "b"));
  CHECK(admissionOf(d, "b")->pods[0].gpus == std::vector<int>{4, 5, 6, 7});
}

}  // namespace
}  // namespace troupe::queueing
