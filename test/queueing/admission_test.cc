#include <catch2/catch.hpp>

#include "queueing/engine.h"
#include "test/queueing/builders.h"
#include "test/queueing/scenario.h"

namespace troupe::queueing {
namespace {

using namespace testing;

TEST_CASE("a gang that fits is admitted whole, with a GPU set per pod", "[queueing][admission]") {
  Engine e = engineWith(rackOfNodes("n", 2, 2), {queue("default")});
  REQUIRE(e.submit(gang("train-a").pods(2).gpus(8)).ok());
  const Decisions d = e.schedule(100);
  REQUIRE(d.admissions.size() == 1);
  // 2 pods x 8 GPUs = 16 GPUs = both nodes, whole.
  const Admission& a = d.admissions[0];
  CHECK(a.gang == "train-a");
  REQUIRE(a.pods.size() == 2);
  CHECK(a.pods[0].node != a.pods[1].node);
  CHECK(a.pods[0].gpus == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(e.isRunning("train-a"));
  CHECK(d.explained.empty());
}

TEST_CASE("a gang is admitted all or nothing: 3 pods of 8 GPUs never start on 2 nodes",
          "[queueing][admission]") {
  Engine e = engineWith(rackOfNodes("n", 2, 2), {queue("default")});
  REQUIRE(e.submit(gang("big").pods(3).gpus(8)).ok());
  const Decisions d = e.schedule(0);
  CHECK(d.admissions.empty());
  const auto p = pendingOf(e, d, "big");
  REQUIRE(p.has_value());
  // 3 x 8 = 24 GPUs > 16 on the whole cluster, even empty.
  CHECK(p->reason == PendingReason::Inadmissible);
  CHECK(p->limited_by_quota);
  CHECK(p->limit_queue.empty());  // the cluster
  CHECK(p->limit_of == 16);
  CHECK_THAT(describe(*p), Catch::Contains("it needs 24 of the cluster's 16 nvidia.com/gpu"));
}

TEST_CASE("fifo: the head blocks everything behind it", "[queueing][fifo]") {
  Policy fifo;
  fifo.kind = PolicyKind::Fifo;
  Engine e = engineWith(rackOfNodes("n", 2, 2), {queue("a"), queue("b")}, fifo);
  REQUIRE(e.addRunning(RunningGang{gang("busy").queue("a").pods(1).gpus(8).build(),
                                   0,
                                   {PodPlacement{0, "n-0", {0, 1, 2, 3, 4, 5, 6, 7}}}})
              .ok());
  REQUIRE(e.submit(gang("head").queue("a").pods(2).gpus(8).submittedAt(1)).ok());
  REQUIRE(e.submit(gang("small").queue("b").pods(1).gpus(1).submittedAt(2)).ok());
  const Decisions d = e.schedule(10);
  // head needs 16 GPUs, 8 are free: it waits, and small (1 GPU, would fit) waits behind it.
  CHECK(d.admissions.empty());
  REQUIRE(pendingOf(e, d, "head").has_value());
  CHECK(pendingOf(e, d, "head")->reason == PendingReason::NoPlacement);
  REQUIRE(pendingOf(e, d, "small").has_value());
  CHECK(pendingOf(e, d, "small")->reason == PendingReason::BlockedByQueueHead);
  CHECK(pendingOf(e, d, "small")->blocking_gang == "head");
}

TEST_CASE("troupe backfills a small gang past a head that does not fit yet",
          "[queueing][backfill]") {
  Engine e = engineWith(rackOfNodes("n", 2, 2), {queue("a")});
  REQUIRE(e.addRunning(RunningGang{gang("busy").queue("a").pods(1).gpus(8).build(),
                                   0,
                                   {PodPlacement{0, "n-0", {0, 1, 2, 3, 4, 5, 6, 7}}}})
              .ok());
  REQUIRE(e.submit(gang("head").queue("a").pods(2).gpus(8).submittedAt(1)).ok());
  REQUIRE(e.submit(gang("small").queue("a").pods(1).gpus(1).submittedAt(2)).ok());
  const Decisions d = e.schedule(10);
  CHECK(admitted(d, "small"));
  REQUIRE(pendingOf(e, d, "head").has_value());
  CHECK(pendingOf(e, d, "head")->reason == PendingReason::NoPlacement);
}

}  // namespace
}  // namespace troupe::queueing
