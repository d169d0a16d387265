// srtf (ShortestRemainingPolicy): preemptive shortest remaining time first, run times known.
#include <catch2/catch.hpp>

#include "test/queueing/builders.h"
#include "test/queueing/scenario.h"

namespace troupe::queueing {
namespace {

using namespace testing;

TEST_CASE("srtf preempts a long gang for a shorter one and resumes it after",
          "[queueing][peer-policies]") {
  Policy p;
  p.kind = PolicyKind::Srtf;
  // One 8-GPU node; every gang asks all 8 GPUs.
  Engine e = engineWith(rackOfNodes("n", 1, 1), {queue("a"), queue("b")}, p);
  REQUIRE(e.submit(gang("long").queue("a").gpus(8).runtimeEstimate(10000).submittedAt(0)).ok());
  Decisions d = e.schedule(0);
  REQUIRE(admitted(d, "long"));

  // At 1,000 long has 10,000 - 1,000 = 9,000 s left. medium needs 9,500: it waits.
  REQUIRE(e.submit(gang("medium").queue("b").gpus(8).runtimeEstimate(9500).submittedAt(1000)).ok());
  d = e.schedule(1000);
  CHECK_FALSE(admitted(d, "medium"));
  CHECK(preempted(d).empty());

  // At 2,000 long has 8,000 left; short needs 500: long is evicted for it.
  REQUIRE(e.submit(gang("short").queue("b").gpus(8).runtimeEstimate(500).submittedAt(2000)).ok());
  d = e.schedule(2000);
  CHECK(preempted(d) == std::set<std::string>{"long"});
  CHECK(admitted(d, "short"));

  // short ends at 2,500: long (8,000 left) goes before medium (9,500).
  REQUIRE(e.remove("short").ok());
  d = e.schedule(2500);
  CHECK(admitted(d, "long"));
  CHECK_FALSE(admitted(d, "medium"));
}

}  // namespace
}  // namespace troupe::queueing
