// tiresias (DiscretizedLasPolicy): discretized 2D-LAS with starvation promotion.
#include <catch2/catch.hpp>

#include "test/queueing/builders.h"
#include "test/queueing/scenario.h"

namespace troupe::queueing {
namespace {

using namespace testing;

TEST_CASE(
    "tiresias demotes a gang past its attained-service threshold and lets a newer one "
    "ahead, then promotes the one left starving",
    "[queueing][peer-policies]") {
  Policy p;
  p.kind = PolicyKind::Tiresias;
  p.tiresias.thresholds = {3600};  // GPU-seconds: two queues
  p.tiresias.promote_knob = 8;
  // One 4-GPU node; both gangs ask all 4 GPUs.
  Engine e = engineWith(rackOfNodes("n", 1, 1, 4), {queue("a"), queue("b")}, p);
  REQUIRE(e.submit(gang("long").queue("a").gpus(4).submittedAt(0)).ok());
  Decisions d = e.schedule(0);
  REQUIRE(admitted(d, "long"));

  // At 100 long has 4 x 100 = 400 GPU-seconds, below 3,600: both are in the first queue,
  // where the earlier submission runs first. long crosses the threshold after another
  // (3,600 - 400) / 4 = 800 s: the engine asks to be woken at 900.
  REQUIRE(e.submit(gang("short").queue("b").gpus(4).submittedAt(100)).ok());
  d = e.schedule(100);
  CHECK_FALSE(admitted(d, "short"));
  CHECK(preempted(d).empty());
  CHECK(d.next_wakeup == 900);

  // At 900 long has 3,600 GPU-seconds: demoted to the second queue, it yields to short.
  d = e.schedule(900);
  CHECK(preempted(d) == std::set<std::string>{"long"});
  CHECK(admitted(d, "short"));
  // short crosses 3,600 after 3,600 / 4 = 900 s of its own.
  CHECK(d.next_wakeup == 1800);

  // At 1800 both are in the second queue, where long came first: short yields back.
  d = e.schedule(1800);
  CHECK(preempted(d) == std::set<std::string>{"short"});
  CHECK(admitted(d, "long"));
  // short last ran 900 s; it starves once it has waited 8 x 900 = 7,200 s: at 9,000.
  CHECK(d.next_wakeup == 9000);
  d = e.schedule(8999);
  CHECK(preempted(d).empty());

  // Promoted to the first queue (its service so far disregarded), short runs again.
  d = e.schedule(9000);
  CHECK(preempted(d) == std::set<std::string>{"long"});
  CHECK(admitted(d, "short"));
}

}  // namespace
}  // namespace troupe::queueing
