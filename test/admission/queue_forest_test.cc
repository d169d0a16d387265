#include <catch2/catch.hpp>

#include "admission/queue_forest.h"
#include "test/admission/fake_cluster.h"

namespace troupe::admission {
namespace {

using testing::FakeCluster;
using testing::queueYaml;

TEST_CASE("a child pushing the guarantees past its parent's stops only itself",
          "[admission][queue-forest]") {
  // org 32 GPUs; team-a 16 and team-b 16 fill it; extra (created last) asks 8 more.
  FakeCluster cluster;
  cluster.addQueue(queueYaml("org", "", 32), "2026-01-01T00:00:00Z");
  cluster.addQueue(queueYaml("team-a", "org", 16), "2026-01-01T00:00:01Z");
  cluster.addQueue(queueYaml("team-b", "org", 16), "2026-01-01T00:00:02Z");
  cluster.addQueue(queueYaml("extra", "org", 8), "2026-01-01T00:00:03Z");
  cluster.addQueue(queueYaml("extra-child", "extra", 8), "2026-01-01T00:00:04Z");
  QueueForest forest(cluster.queues());
  // 16 + 16 = 32 fits org's 32; + 8 = 40 does not: extra is the one that breaks it.
  REQUIRE(forest.problems().size() == 2);
  const QueueProblem* extra = forest.problem("extra");
  REQUIRE(extra != nullptr);
  CHECK(extra->reason == kQueueGuaranteeExceedsParent);
  CHECK(extra->error.field_path == "spec.resources[nvidia.com/gpu].guaranteed");
  CHECK(extra->error.message ==
        "Invalid value: \"8\": the guarantees of org's children would add up to 40 "
        "nvidia.com/gpu, more than org's 32");
  CHECK(forest.problem("extra-child")->reason == kQueueParentNotReady);
  CHECK(forest.problem("org") == nullptr);
  CHECK(forest.problem("team-a") == nullptr);
  CHECK(forest.problem("team-b") == nullptr);
}

TEST_CASE("the children created first keep their place, whatever their names",
          "[admission][queue-forest]") {
  FakeCluster cluster;
  cluster.addQueue(queueYaml("org", "", 10), "2026-01-01T00:00:00Z");
  cluster.addQueue(queueYaml("zeta", "org", 6), "2026-01-01T00:00:01Z");
  cluster.addQueue(queueYaml("alpha", "org", 6), "2026-01-01T00:00:02Z");
  // A later, smaller queue still fits after alpha is left out: 6 + 4 = 10.
  cluster.addQueue(queueYaml("beta", "org", 4), "2026-01-01T00:00:03Z");
  QueueForest forest(cluster.queues());
  CHECK(forest.problem("zeta") == nullptr);
  CHECK(forest.problem("alpha")->reason == kQueueGuaranteeExceedsParent);
  CHECK(forest.problem("beta") == nullptr);
}

TEST_CASE("missing parents, cycles and bad specs each name their reason",
          "[admission][queue-forest]") {
  FakeCluster cluster;
  cluster.addQueue(queueYaml("orphan", "nowhere", 0));
  cluster.addQueue(queueYaml("a", "b", 0));
  cluster.addQueue(queueYaml("b", "a", 0));
  cluster.addQueue(queueYaml("below-cycle", "a", 0));
  cluster.addQueue(
      "apiVersion: troupe.dev/v1alpha1\nkind: Queue\nmetadata: {name: huge}\n"
      "spec: {resources: {memory: {guaranteed: 100000Ti}}}\n");
  cluster.addQueue(queueYaml("under-huge", "huge", 0));
  QueueForest forest(cluster.queues());
  CHECK(forest.problem("orphan")->reason == kQueueParentNotFound);
  CHECK(forest.problem("orphan")->error.describe() == "spec.parent: Not found: \"nowhere\"");
  CHECK(forest.problem("a")->reason == kQueueCycle);
  CHECK(forest.problem("a")->error.message ==
        "Invalid value: \"b\": the queue would be its own ancestor: a -> b -> a");
  CHECK(forest.problem("b")->reason == kQueueCycle);
  CHECK(forest.problem("below-cycle")->reason == kQueueParentNotReady);
  CHECK(forest.problem("huge")->reason == kQueueInvalidSpec);
  CHECK(forest.problem("huge")->error.field_path == "spec.resources[memory].guaranteed");
  CHECK(forest.problem("under-huge")->reason == kQueueParentNotReady);
  CHECK(forest.problem("under-huge")->error.message ==
        "Invalid value: \"huge\": queue huge cannot take jobs (InvalidSpec)");
}

TEST_CASE("a queue with children is no leaf, and says which its leaves are",
          "[admission][queue-forest]") {
  FakeCluster cluster;
  cluster.addQueue(queueYaml("org", "", 0));
  cluster.addQueue(queueYaml("research", "org", 0));
  cluster.addQueue(queueYaml("team-b", "org", 0));
  cluster.addQueue(queueYaml("team-a", "research", 0));
  QueueForest forest(cluster.queues());
  CHECK_FALSE(forest.isLeaf("org"));
  CHECK(forest.isLeaf("team-a"));
  CHECK(notALeafMessage(forest, "org") == "org is not a leaf queue; its leaves are team-a, team-b");
}

}  // namespace
}  // namespace troupe::admission
