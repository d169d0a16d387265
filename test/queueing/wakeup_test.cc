// The next wake-up: the earliest time a cycle would decide differently although nothing
// was reported, so the caller can set a timer instead of polling.
#include <catch2/catch.hpp>

#include <functional>
#include <optional>

#include "test/queueing/builders.h"
#include "test/queueing/scenario.h"

namespace troupe::queueing {
namespace {

using namespace testing;

struct WakeupRow {
  const char* story;
  std::function<Engine()> setup;
  Seconds now;
  std::optional<Seconds> wakeup;
};

// One 8-GPU node, full with `runner` (started at 0), and queue "a" waiting for it.
Engine oneBusyNode(QueueBuilder a, QueueBuilder b, GangBuilder runner, GangBuilder waiter,
                   Policy policy = {}) {
  Engine e = engineWith(rackOfNodes("n", 1, 1), {a, b}, std::move(policy));
  REQUIRE(e.addRunning(runningOn(runner, {"n-0"}, 0)).ok());
  REQUIRE(e.submit(waiter).ok());
  return e;
}

TEST_CASE("decisions carry the next moment something would change without any event",
          "[queueing][wakeup]") {
  Policy no_backfill;
  no_backfill.backfill = false;
  const std::vector<WakeupRow> rows = {
      {"a waiting gang starts starving at its submit time plus maxWaitSeconds",
       [] {
         return oneBusyNode(queue("a").maxWait(100), queue("b").maxWait(100),
                            gang("r").queue("a").gpus(8), gang("w").queue("a").submittedAt(10));
       },
       50, 110},
      {"the earliest of several waiting gangs",
       [] {
         Engine e = oneBusyNode(queue("a").maxWait(100), queue("b").maxWait(30),
                                gang("r").queue("a").gpus(8), gang("w").queue("a").submittedAt(10));
         REQUIRE(e.submit(gang("w2").queue("b").submittedAt(40)).ok());
         return e;
       },
       50, 70},
      {"without backfill starving changes nothing",
       [=] {
         return oneBusyNode(queue("a").maxWait(100), queue("b").maxWait(100),
                            gang("r").queue("a").gpus(8), gang("w").queue("a").submittedAt(10),
                            no_backfill);
       },
       50, std::nullopt},
      {"a victim protected by minRuntimeSeconds becomes preemptible",
       [] {
         return oneBusyNode(queue("a").guaranteedGpus(8).maxWait(100000),
                            queue("b").minRuntime(300).maxWait(100000),
                            gang("r").queue("b").gpus(8),
                            gang("w").queue("a").gpus(8).submittedAt(10));
       },
       50, 300},
      {"a reservation's nodes are expected free when the runners' estimates end",
       [] {
         return oneBusyNode(queue("a").maxWait(100), queue("b").maxWait(100),
                            gang("r").queue("a").gpus(8).runtimeEstimate(400),
                            gang("w").queue("a").gpus(8).submittedAt(10));
       },
       150, 400},
      {"a starving gang waiting on runners without estimates: nothing is known",
       [] {
         return oneBusyNode(queue("a").maxWait(100), queue("b").maxWait(100),
                            gang("r").queue("a").gpus(8), gang("w").queue("a").submittedAt(10));
       },
       150, std::nullopt},
      {"everything admitted: nothing to wake up for",
       [] {
         Engine e = engineWith(rackOfNodes("n", 1, 1), {queue("a").maxWait(100)});
         REQUIRE(e.submit(gang("w").queue("a").submittedAt(10)).ok());
         return e;
       },
       50, std::nullopt},
  };
  for (const auto& row : rows) {
    DYNAMIC_SECTION(row.story) {
      Engine e = row.setup();
      const Decisions d = e.schedule(row.now);
      CHECK(d.next_wakeup == row.wakeup);
      if (row.wakeup) {
        SECTION("a cycle before then with no delta decides the same, and so does the next") {
          const Decisions again = e.schedule(*row.wakeup - 1);
          CHECK(again.empty());
          CHECK(again.next_wakeup == row.wakeup);
        }
      }
    }
  }
}

TEST_CASE("at the wake-up time the change happens", "[queueing][wakeup]") {
  // The minRuntimeSeconds row: at 300 the victim may go, and a takes back its guarantee.
  Engine e = oneBusyNode(queue("a").guaranteedGpus(8).maxWait(100000),
                         queue("b").minRuntime(300).maxWait(100000), gang("r").queue("b").gpus(8),
                         gang("w").queue("a").gpus(8).submittedAt(10));
  const Decisions d = e.schedule(50);
  REQUIRE(d.next_wakeup == Seconds{300});
  const Decisions then = e.schedule(*d.next_wakeup);
  CHECK(preempted(then) == std::set<std::string>{"r"});
  CHECK(admitted(then, "w"));
}

}  // namespace
}  // namespace troupe::queueing
