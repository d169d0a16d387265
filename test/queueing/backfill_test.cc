#include <catch2/catch.hpp>

#include <functional>

#include "test/queueing/builders.h"
#include "test/queueing/scenario.h"

namespace troupe::queueing {
namespace {

using namespace testing;

// Two 8-GPU nodes. 'r1' holds all of n-0, 'r2' half of n-1. The head wants both nodes
// whole (2 x 8 GPUs); 'small' wants 4 GPUs, which n-1 has free right now.
Engine twoBusyNodes(std::optional<Seconds> estimate = std::nullopt) {
  Engine e = engineWith(rackOfNodes("n", 2, 2), {queue("a").maxWait(100)});
  GangBuilder r1 = gang("r1").queue("a").gpus(8);
  GangBuilder r2 = gang("r2").queue("a").gpus(4);
  if (estimate) {
    r1.runtimeEstimate(*estimate);
    r2.runtimeEstimate(*estimate);
  }
  REQUIRE(e.addRunning(runningOn(r1, {"n-0"}, 0)).ok());
  REQUIRE(e.addRunning(runningOn(r2, {"n-1"}, 0)).ok());
  REQUIRE(e.submit(gang("head").queue("a").gpus(8).pods(2).submittedAt(0)).ok());
  return e;
}

TEST_CASE("before the head starves, smaller gangs backfill around it", "[queueing][backfill]") {
  Engine e = twoBusyNodes();
  REQUIRE(e.submit(gang("small").queue("a").gpus(4).submittedAt(10)).ok());
  // t = 50: the head has waited 50 s < maxWait 100.
  const Decisions d = e.schedule(50);
  CHECK(admitted(d, "small"));
  CHECK(reasonOf(e, "head") == PendingReason::NoPlacement);
}

TEST_CASE("a starving head holds the capacity it needs as it frees", "[queueing][backfill]") {
  Engine e = twoBusyNodes();
  // t = 150: the head has waited 150 s >= 100: it starves and reserves both nodes.
  Decisions d = e.schedule(150);
  CHECK(reasonOf(e, "head") == PendingReason::Reserved);
  REQUIRE(e.submit(gang("small").queue("a").gpus(4).submittedAt(140)).ok());
  d = e.schedule(160);
  // n-1's 4 free GPUs are held for the head: small waits, and says for whom.
  CHECK_FALSE(admitted(d, "small"));
  const auto why = e.explanation("small");
  REQUIRE(why.has_value());
  CHECK(why->reason == PendingReason::BlockedByStarvingJob);
  CHECK(why->blocking_gang == "head");
  // The running gangs end: the head starts, before small.
  REQUIRE(e.remove("r1").ok());
  REQUIRE(e.remove("r2").ok());
  d = e.schedule(170);
  CHECK(admitted(d, "head"));
  CHECK_FALSE(admitted(d, "small"));
}

TEST_CASE("with runtime estimates, a gang that ends before the reservation starts may backfill",
          "[queueing][backfill]") {
  // r1 and r2 are expected to end at t = 0 + 300: the head's reservation starts then.
  Engine e = twoBusyNodes(300);
  e.schedule(150);
  CHECK(reasonOf(e, "head") == PendingReason::Reserved);
  SECTION("ends at 160 + 100 = 260 <= 300: backfills") {
    REQUIRE(e.submit(gang("quick").queue("a").gpus(4).runtimeEstimate(100).submittedAt(155)).ok());
    CHECK(admitted(e.schedule(160), "quick"));
  }
  SECTION("ends at 160 + 200 = 360 > 300: waits") {
    REQUIRE(e.submit(gang("slow").queue("a").gpus(4).runtimeEstimate(200).submittedAt(155)).ok());
    CHECK_FALSE(admitted(e.schedule(160), "slow"));
    CHECK(reasonOf(e, "slow") == PendingReason::BlockedByStarvingJob);
  }
}

TEST_CASE("a stream of small gangs never starves a large one", "[queueing][backfill]") {
  // Four nodes; every 10 s a 1-node gang arrives and each runs 30 s. The 4-node head
  // arrives at t = 0 with maxWait 100. Without reservations the small gangs would keep
  // at least one node busy forever.
  Engine e = engineWith(rackOfNodes("n", 4, 4), {queue("a").maxWait(100)});
  REQUIRE(e.submit(gang("head").queue("a").gpus(8).pods(4).submittedAt(0)).ok());
  std::vector<std::pair<std::string, Seconds>> running;  // name, end time
  Seconds head_started = -1;
  for (Seconds t = 0; t <= 400 && head_started < 0; t += 5) {
    for (auto it = running.begin(); it != running.end();) {
      if (it->second <= t) {
        REQUIRE(e.remove(it->first).ok());
        it = running.erase(it);
      } else {
        ++it;
      }
    }
    if (t % 10 == 0 && t > 0)
      REQUIRE(e.submit(gang("s" + std::to_string(t)).queue("a").gpus(8).submittedAt(t)).ok());
    const Decisions d = e.schedule(t);
    for (const auto& a : d.admissions) {
      if (a.gang == "head")
        head_started = t;
      else
        running.emplace_back(a.gang, t + 30);
    }
  }
  // It starves at t = 100; the nodes drain within one run time (30 s) after that.
  REQUIRE(head_started >= 0);
  CHECK(head_started <= 100 + 30 + 5);
}

// Two full 8-GPU nodes, one running gang of each queue on each; a starving 8-GPU gang in
// each queue; one reservation in all (Policy::max_reservations).
Engine oneReservationTwoStarving(bool skip_unchanged_queues) {
  Policy policy;
  policy.max_reservations = 1;
  policy.skip_unchanged_queues = skip_unchanged_queues;
  Engine e = engineWith(rackOfNodes("n", 2, 2), {queue("a").maxWait(100), queue("b").maxWait(100)},
                        policy);
  REQUIRE(e.addRunning(runningOn(gang("ra").queue("a").gpus(8), {"n-0"}, 0)).ok());
  REQUIRE(e.addRunning(runningOn(gang("rb").queue("b").gpus(8), {"n-1"}, 0)).ok());
  REQUIRE(e.submit(gang("ha").queue("a").gpus(8).submittedAt(0)).ok());
  REQUIRE(e.submit(gang("hb").queue("b").gpus(8).submittedAt(10)).ok());
  return e;
}

// Tells `story` on that engine twice: skipping unchanged queues, and examining every queue
// every cycle; both must read the same.
void withAndWithoutSkipping(const std::function<void(Engine&)>& story) {
  for (const bool skip : {true, false}) {
    INFO("skip_unchanged_queues " << skip);
    Engine e = oneReservationTwoStarving(skip);
    story(e);
  }
}

TEST_CASE("with every reservation held, a starving gang takes the next one that frees",
          "[queueing][backfill]") {
  withAndWithoutSkipping([](Engine& e) {
    // t = 150: both starve; the one reservation goes to the first in fair-share order.
    e.schedule(150);
    CHECK(reasonOf(e, "ha") == PendingReason::Reserved);
    CHECK(reasonOf(e, "hb") != PendingReason::Reserved);
    // Nothing of b changes while a's reservation holds: b waits, cycle after cycle.
    for (Seconds t = 151; t < 155; ++t) {
      e.schedule(t);
      CHECK(reasonOf(e, "hb") != PendingReason::Reserved);
    }
    // ha is deleted: its reservation ends, and hb takes it, though nothing of queue b
    // changed and no capacity came free for it (every node is still full).
    REQUIRE(e.remove("ha").ok());
    e.schedule(160);
    CHECK(reasonOf(e, "hb") == PendingReason::Reserved);
    // rb ends: hb starts on the node it frees.
    REQUIRE(e.remove("rb").ok());
    CHECK(admitted(e.schedule(170), "hb"));
  });
}

TEST_CASE("a gang that starts to starve while every reservation is held takes the next",
          "[queueing][backfill]") {
  withAndWithoutSkipping([](Engine& e) {
    // t = 50: nobody starves yet (ha at 100, hb at 110); both queues are examined.
    e.schedule(50);
    CHECK(reasonOf(e, "ha") != PendingReason::Reserved);
    // t = 105: ha starts to starve, with the reservation free: it takes it.
    e.schedule(105);
    CHECK(reasonOf(e, "ha") == PendingReason::Reserved);
    // t = 115: hb starts to starve, with the reservation held: nothing for it.
    e.schedule(115);
    CHECK(reasonOf(e, "hb") != PendingReason::Reserved);
    // ha is deleted: its reservation ends, and hb, which started to starve while it was
    // held, takes it.
    REQUIRE(e.remove("ha").ok());
    e.schedule(120);
    CHECK(reasonOf(e, "hb") == PendingReason::Reserved);
  });
}

TEST_CASE("a reservation moves to the nodes that free first", "[queueing][backfill]") {
  // Three 8-GPU nodes: r0 holds all of n-0, r1 and r2 half of n-1 and n-2. The head wants
  // two whole nodes.
  Engine e = engineWith(rackOfNodes("n", 3, 3), {queue("a").maxWait(100)});
  REQUIRE(e.addRunning(runningOn(gang("r0").queue("a").gpus(8), {"n-0"}, 0)).ok());
  REQUIRE(e.addRunning(runningOn(gang("r1").queue("a").gpus(4), {"n-1"}, 0)).ok());
  REQUIRE(e.addRunning(runningOn(gang("r2").queue("a").gpus(4), {"n-2"}, 0)).ok());
  REQUIRE(e.submit(gang("head").queue("a").gpus(8).pods(2).submittedAt(0)).ok());
  // t = 150: the head starves and reserves the freest nodes, n-1 and n-2 (4 free each).
  e.schedule(150);
  CHECK(reasonOf(e, "head") == PendingReason::Reserved);
  // r0 ends first: n-0 (8 free) is now the freest node, and the reservation moves to it,
  // so an 8-GPU gang that arrives does not take it.
  REQUIRE(e.remove("r0").ok());
  REQUIRE(e.submit(gang("small").queue("a").gpus(8).submittedAt(155)).ok());
  Decisions d = e.schedule(160);
  CHECK_FALSE(admitted(d, "small"));
  CHECK(reasonOf(e, "small") == PendingReason::BlockedByStarvingJob);
  // r1 ends: the head starts on n-0 and n-1 while r2 still runs on n-2.
  REQUIRE(e.remove("r1").ok());
  d = e.schedule(170);
  REQUIRE(admitted(d, "head"));
  CHECK(nodesOf(*admissionOf(d, "head")) == std::set<std::string>{"n-0", "n-1"});
}

TEST_CASE("one queue's starving gangs hold one reservation, another queue's its own",
          "[queueing][backfill]") {
  // Four full 8-GPU nodes, run by gangs that may not be preempted. Queue a has two starving
  // 8-GPU gangs, queue b one, submitted last; reservations are free to take (8 in all).
  Engine e = engineWith(rackOfNodes("n", 4, 4),
                        {queue("a").maxWait(100), queue("b").maxWait(100), queue("c")});
  for (int i = 0; i < 4; ++i) {
    const std::string n = "n-" + std::to_string(i);
    REQUIRE(
        e.addRunning(runningOn(gang("r" + n).queue("c").gpus(8).notPreemptible(), {n}, 0)).ok());
  }
  REQUIRE(e.submit(gang("a1").queue("a").gpus(8).submittedAt(0)).ok());
  REQUIRE(e.submit(gang("a2").queue("a").gpus(8).submittedAt(1)).ok());
  REQUIRE(e.submit(gang("b1").queue("b").gpus(8).submittedAt(2)).ok());
  // t = 150: all three starve. a's first takes a's reservation, and b1 takes b's
  // (Policy::max_reservations_per_queue = 1); a2 waits for a1's, blocked by a reservation.
  e.schedule(150);
  CHECK(reasonOf(e, "a1") == PendingReason::Reserved);
  CHECK(reasonOf(e, "a2") != PendingReason::Reserved);
  CHECK(reasonOf(e, "b1") == PendingReason::Reserved);
  // a1 starts when a node frees; a2 then takes a's reservation.
  REQUIRE(e.remove("rn-0").ok());
  CHECK(admitted(e.schedule(160), "a1"));
  e.schedule(161);
  CHECK(reasonOf(e, "a2") == PendingReason::Reserved);
}

TEST_CASE("a gang started on its reservation beyond its queue's guarantee is not reclaimed",
          "[queueing][backfill][reclaim]") {
  // Two 8-GPU nodes. Queue big is guaranteed 4 GPUs and wants 16 at once, so it can only
  // borrow; queue own is guaranteed 12.
  Engine e = engineWith(rackOfNodes("n", 2, 2), {queue("big").guaranteedGpus(4).maxWait(100),
                                                 queue("own").guaranteedGpus(12).maxWait(100)});
  REQUIRE(e.addRunning(runningOn(gang("r").queue("own").gpus(8), {"n-0"}, 0)).ok());
  REQUIRE(e.submit(gang("wide").queue("big").gpus(8).pods(2).submittedAt(0)).ok());
  SECTION("started on its reservation: own waits for it to end") {
    // t = 150: wide starves and reserves both nodes; r ends and wide starts on them.
    e.schedule(150);
    CHECK(reasonOf(e, "wide") == PendingReason::Reserved);
    REQUIRE(e.remove("r").ok());
    REQUIRE(admitted(e.schedule(160), "wide"));
    // own comes back below its guarantee (0 of 12): reclaim may not take wide.
    REQUIRE(e.submit(gang("back").queue("own").gpus(8).submittedAt(170)).ok());
    const Decisions d = e.schedule(170);
    CHECK(d.preemptions.empty());
    CHECK(reasonOf(e, "back") == PendingReason::WaitingForReclaim);
  }
  SECTION("started without one, on idle GPUs: own takes its guarantee back") {
    // r ends before wide starves: wide starts on the idle nodes as an ordinary borrower.
    REQUIRE(e.remove("r").ok());
    REQUIRE(admitted(e.schedule(50), "wide"));
    REQUIRE(e.submit(gang("back").queue("own").gpus(8).submittedAt(170)).ok());
    const Decisions d = e.schedule(170);
    CHECK(preempted(d) == std::set<std::string>{"wide"});
  }
}

TEST_CASE("backfill: false keeps each queue in order", "[queueing][backfill]") {
  Policy p;
  p.backfill = false;
  Engine e = engineWith(rackOfNodes("n", 2, 2), {queue("a")}, p);
  REQUIRE(e.addRunning(runningOn(gang("r1").queue("a").gpus(8), {"n-0"})).ok());
  REQUIRE(e.submit(gang("head").queue("a").gpus(8).pods(2).submittedAt(0)).ok());
  REQUIRE(e.submit(gang("small").queue("a").gpus(4).submittedAt(10)).ok());
  const Decisions d = e.schedule(20);
  CHECK(d.admissions.empty());
  CHECK(reasonOf(e, "small") == PendingReason::BlockedByQueueHead);
}

}  // namespace
}  // namespace troupe::queueing
