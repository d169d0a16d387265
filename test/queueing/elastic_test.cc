#include <catch2/catch.hpp>

#include "test/queueing/builders.h"
#include "test/queueing/scenario.h"

namespace troupe::queueing {
namespace {

using namespace testing;

TEST_CASE("an elastic gang starts at full size when the room is there", "[queueing][elastic]") {
  Engine e = engineWith(rackOfNodes("n", 4, 4), {queue("default")});
  REQUIRE(e.submit(gang("el").gpus(8).elastic(2, 4)).ok());
  const Decisions d = e.schedule(0);
  REQUIRE(admitted(d, "el"));
  CHECK(admissionOf(d, "el")->pod_set_counts == std::vector<std::int32_t>{4});
}

TEST_CASE("an elastic gang starts between its minimum and its size when that is all there is",
          "[queueing][elastic]") {
  // 3 free nodes: 4 pods do not fit, 2 (minimum) do, then it grows to 3 in the same cycle.
  Engine e = engineWith(rackOfNodes("n", 3, 3), {queue("default")});
  REQUIRE(e.submit(gang("el").gpus(8).elastic(2, 4)).ok());
  const Decisions d = e.schedule(0);
  REQUIRE(admitted(d, "el"));
  CHECK(admissionOf(d, "el")->pod_set_counts == std::vector<std::int32_t>{3});
  CHECK(admissionOf(d, "el")->pods.size() == 3);
  CHECK(d.resizes.empty());
}

TEST_CASE("an elastic gang grows toward its size when capacity frees and nobody waits",
          "[queueing][elastic]") {
  Engine e = engineWith(rackOfNodes("n", 4, 4), {queue("default")});
  REQUIRE(e.addRunning(runningOn(gang("el").gpus(8).elastic(2, 4), {"n-0", "n-1"})).ok());
  REQUIRE(e.addRunning(runningOn(gang("other").gpus(8).pods(2), {"n-2", "n-3"})).ok());
  CHECK(e.schedule(10).empty());  // no room: nothing changes
  REQUIRE(e.remove("other").ok());
  const Decisions d = e.schedule(20);
  REQUIRE(d.resizes.size() == 1);
  CHECK(d.resizes[0].gang == "el");
  CHECK(d.resizes[0].pod_set_counts == std::vector<std::int32_t>{4});
  CHECK(d.resizes[0].added.size() == 2);
}

TEST_CASE("an elastic gang does not grow while another gang waits for capacity",
          "[queueing][elastic]") {
  Engine e = engineWith(rackOfNodes("n", 4, 4), {queue("default")});
  REQUIRE(e.addRunning(runningOn(gang("el").gpus(8).elastic(2, 4), {"n-0", "n-1"})).ok());
  // 'wide' needs 3 nodes, 2 are free: it waits (NoPlacement), so 'el' may not grow into
  // the capacity it is waiting for.
  REQUIRE(e.submit(gang("wide").gpus(8).pods(3).submittedAt(5)).ok());
  const Decisions d = e.schedule(10);
  CHECK(d.resizes.empty());
  CHECK(reasonOf(e, "wide") == PendingReason::NoPlacement);
}

}  // namespace
}  // namespace troupe::queueing
