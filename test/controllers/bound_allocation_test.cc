#include <catch2/catch.hpp>

#include "controllers/bound_allocation.h"
#include "controllers/cluster_snapshot.h"
#include "test/controllers/builders.h"

using namespace troupe::controllers;
using namespace troupe::controllers::testing;
using troupe::queueing::kGpu;

TEST_CASE("a queue holds what its pods hold, terminating ones included, until they are gone",
          "[controllers][queues]") {
  // team-a's victim terminates on n1 (8 GPUs) while team-b's newcomer is bound on n2 this
  // cycle: team-a holds 8 and team-b 4 until the victim's pod is gone, and org both.
  ApiObjects objects;
  objects.nodes = {node("n1"), node("n2")};
  objects.queues = {queue("org"), queue("team-a").parent("org"), queue("team-b").parent("org")};
  objects.pod_groups = {podGroup("ml", "victim"), podGroup("ml", "newcomer").queue("team-b"),
                        podGroup("ml", "waiting").queue("team-b")};
  objects.pods = {
      pod("ml", "victim-0").group("victim").gpus(8).boundTo("n1", "0,1,2,3,4,5,6,7").deleting(),
      pod("ml", "newcomer-0").group("newcomer").gpus(4),
      pod("ml", "waiting-0").group("waiting").gpus(4)};
  auto cluster = buildClusterSnapshot(objects, {});
  troupe::state::AdmissionRecord record{
      "ml/newcomer", "team-b", 1, 0, {{"ml", "newcomer-0", "n2", {0, 1, 2, 3}}}};
  const auto allocated = boundAllocation(cluster, {&record});
  CHECK(allocated.at("team-a")[kGpu] == 8);
  CHECK(allocated.at("team-b")[kGpu] == 4);  // waiting holds nothing yet
  CHECK(allocated.at("org")[kGpu] == 12);
}
