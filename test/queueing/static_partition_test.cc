// yarn-cs (StaticPartitionPolicy): every queue a static partition of its guarantee.
#include <catch2/catch.hpp>

#include "test/queueing/builders.h"
#include "test/queueing/scenario.h"

namespace troupe::queueing {
namespace {

using namespace testing;

Policy yarnCapacity() {
  Policy p;
  p.kind = PolicyKind::YarnCapacity;
  return p;
}

TEST_CASE("yarn-cs never lends a queue's idle guarantee to another queue",
          "[queueing][peer-policies]") {
  // Two 8-GPU nodes; a and b are guaranteed 8 GPUs each. Only a has work: two 8-GPU gangs
  // and a 1-GPU gang behind them.
  Engine e =
      engineWith(rackOfNodes("n", 2, 2),
                 {queue("a").guaranteedGpus(8), queue("b").guaranteedGpus(8)}, yarnCapacity());
  REQUIRE(e.submit(gang("a1").queue("a").gpus(8).submittedAt(1)).ok());
  REQUIRE(e.submit(gang("a2").queue("a").gpus(8).submittedAt(2)).ok());
  REQUIRE(e.submit(gang("a3").queue("a").gpus(1).submittedAt(3)).ok());
  REQUIRE(e.submit(gang("huge").queue("b").gpus(8).pods(2).submittedAt(4)).ok());
  Decisions d = e.schedule(10);
  // a1 fills a's partition: 0 + 8 <= 8. a2 would make it 16 > 8 while b's 8 GPUs sit idle:
  // it waits at its queue's limit, and a3 waits behind it (FIFO within the queue).
  CHECK(admitted(d, "a1"));
  CHECK_FALSE(admitted(d, "a2"));
  CHECK(reasonOf(e, "a2") == PendingReason::QueueAtLimit);
  CHECK(reasonOf(e, "a3") == PendingReason::BlockedByQueueHead);
  // huge asks 16 GPUs of b's 8: it can never run there, waits at b's limit for good, and
  // blocks no one.
  CHECK(reasonOf(e, "huge") == PendingReason::QueueAtLimit);

  // b's own work is admitted into b's partition.
  REQUIRE(e.submit(gang("b1").queue("b").gpus(8).submittedAt(20)).ok());
  d = e.schedule(20);
  CHECK(admitted(d, "b1"));

  // Once a1 ends, a2 takes a's partition back, and a3 still waits: 8 + 1 > 8.
  REQUIRE(e.remove("a1").ok());
  d = e.schedule(30);
  CHECK(admitted(d, "a2"));
  CHECK(reasonOf(e, "a3") == PendingReason::QueueAtLimit);
}

TEST_CASE("the troupe policy lends the same idle guarantee that yarn-cs keeps idle",
          "[queueing][peer-policies]") {
  // The story above under the troupe policy: a2 borrows b's idle 8 GPUs.
  Engine e = engineWith(rackOfNodes("n", 2, 2),
                        {queue("a").guaranteedGpus(8), queue("b").guaranteedGpus(8)});
  REQUIRE(e.submit(gang("a1").queue("a").gpus(8).submittedAt(1)).ok());
  REQUIRE(e.submit(gang("a2").queue("a").gpus(8).submittedAt(2)).ok());
  Decisions d = e.schedule(10);
  CHECK(admitted(d, "a1"));
  CHECK(admitted(d, "a2"));
}

}  // namespace
}  // namespace troupe::queueing
