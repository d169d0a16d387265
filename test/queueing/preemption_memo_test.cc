// A failed preemption search is remembered across cycles while nothing released capacity.
// When allocations or fair shares move, the failure is kept only if it still provably
// fails; these cases would break if a failure were kept after a move that can help it.
#include <catch2/catch.hpp>

#include "test/queueing/builders.h"
#include "test/queueing/scenario.h"

namespace troupe::queueing {
namespace {

using namespace testing;

// Two racks of two 8-GPU nodes:  r0: n-0 free, n-1 c-1   r1: n-2 d-1, n-3 c-2.
// Queue a (guaranteed 16) wants a gang of two whole nodes in one rack. Queue c holds its
// guarantee of 16 exactly, so only d (guaranteed nothing) is above its fair share: a may
// take d-1, which leaves no rack with two free nodes, and its search fails having tried
// every candidate. Then c admits c-3 on the free node: no capacity was released, but c is
// now above its fair share, so its gangs became candidates and a can take rack r0.
struct MoveRow {
  const char* story;
  bool c_grows;       // c admits c-3 on n-0, going above its fair share
  bool big_admitted;  // within a few cycles after
};

TEST_CASE("a failed preemption search is searched again when a new queue becomes a source",
          "[queueing][preemption][memo]") {
  const std::vector<MoveRow> rows = {
      {"a queue going above its fair share without releasing anything voids the failure", true,
       true},
      {"with nothing moving the failure stands", false, false},
  };
  for (const auto& row : rows) {
    DYNAMIC_SECTION(row.story) {
      Engine e = engineWith(rackOfNodes("n", 4, 2), {queue("a").guaranteedGpus(16),
                                                     queue("c").guaranteedGpus(16), queue("d")});
      REQUIRE(e.addRunning(runningOn(gang("c-1").queue("c").gpus(8).build(), {"n-1"})).ok());
      REQUIRE(e.addRunning(runningOn(gang("d-1").queue("d").gpus(8).build(), {"n-2"})).ok());
      REQUIRE(e.addRunning(runningOn(gang("c-2").queue("c").gpus(8).build(), {"n-3"})).ok());
      REQUIRE(e.submit(gang("big")
                           .queue("a")
                           .pods(2)
                           .gpus(8)
                           .requireTopology("troupe.dev/rack")
                           .submittedAt(0))
                  .ok());
      Decisions d = e.schedule(1000);
      REQUIRE_FALSE(admitted(d, "big"));
      CHECK(d.preemptions.empty());
      const auto first = e.explanation("big");
      REQUIRE(first.has_value());
      // Its topology is required: no rack has room for it now.
      CHECK(first->reason == PendingReason::TopologyUnsatisfiable);
      CHECK(first->detail == "preempting every gang it may preempt would still not make room");
      if (row.c_grows) {
        REQUIRE(e.submit(gang("c-3").queue("c").gpus(8).submittedAt(1001)).ok());
        d = e.schedule(1001);
        REQUIRE(admitted(d, "c-3"));
        CHECK(nodesOf(*admissionOf(d, "c-3")) == std::set<std::string>{"n-0"});
      }
      bool big = false;
      std::set<std::string> victims;
      for (Seconds t = 1002; t < 1006 && !big; ++t) {
        d = e.schedule(t);
        big = admitted(d, "big");
        victims = preempted(d);
      }
      CHECK(big == row.big_admitted);
      if (row.big_admitted) {
        CHECK_FALSE(victims.empty());
        CHECK(e.isRunning("big"));
      } else {
        CHECK(e.isRunning("d-1"));
        CHECK(reasonOf(e, "big") == PendingReason::TopologyUnsatisfiable);
      }
    }
  }
}

}  // namespace
}  // namespace troupe::queueing
