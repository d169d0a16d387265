#include <catch2/catch.hpp>

#include "queueing/gpu_picker.h"
#include "test/queueing/builders.h"
#include "test/queueing/scenario.h"

namespace troupe::queueing {
namespace {

using namespace testing;

struct ConstraintCase {
  std::string name;
  NodeSpec node;
  GangSpec gang;
  bool want_admitted;
};

TEST_CASE("copiesOf counts the copies a capacity holds, up to a cap", "[queueing][placement]") {
  const ResourceVector node = ResourceVector::of(8, 64000, 512 * kGiB);
  // Cases as a division would count them; the product check must agree, overflow included.
  CHECK(node.copiesOf(ResourceVector::of(1, 1000, kGiB), 1) == 1);
  CHECK(node.copiesOf(ResourceVector::of(1, 1000, kGiB), 100) == 8);   // GPUs bound it
  CHECK(node.copiesOf(ResourceVector::of(0, 1000, kGiB), 100) == 64);  // CPU bounds it
  CHECK(node.copiesOf(ResourceVector::of(0, 0, kGiB), std::int64_t{1} << 40) == 512);
  CHECK(node.copiesOf(ResourceVector::of(0, 0, 0), 7) == 7);  // asks nothing: the cap
  CHECK(node.copiesOf(ResourceVector::of(16, 0, 0), 3) == 0);
  CHECK(node.copiesOf(ResourceVector::of(0, 0, kGiB), 0) == 0);
  CHECK(node.copiesOf(ResourceVector::of(0, 0, kGiB), -2) == -2);  // below zero: the cap
  // per copy x cap overflows int64: the division decides.
  CHECK(node.copiesOf(ResourceVector::of(0, 0, std::int64_t{1} << 40), std::int64_t{1} << 40) == 0);
  const ResourceVector huge = ResourceVector::of(0, 0, std::int64_t{1} << 62);
  CHECK(huge.copiesOf(ResourceVector::of(0, 0, std::int64_t{1} << 40), std::int64_t{1} << 40) ==
        std::int64_t{1} << 22);
  const ResourceVector overdrawn = ResourceVector::of(-1, 64000, kGiB);
  CHECK(overdrawn.copiesOf(ResourceVector::of(1, 0, 0), 5) == 0);
}

TEST_CASE("node constraints: selectors, affinity, taints, readiness", "[queueing][placement]") {
  const std::vector<ConstraintCase> cases = {
      {"a node selector matching the node's label admits", node("n").label("gpu-type", "h100"),
       gang("g").nodeSelector("gpu-type", "h100"), true},
      {"a node selector with another value refuses", node("n").label("gpu-type", "a100"),
       gang("g").nodeSelector("gpu-type", "h100"), false},
      {"affinity In lists the node's value", node("n").label("zone", "b"),
       gang("g").affinity("zone", SelectorOperator::In, {"a", "b"}), true},
      {"affinity In without the node's value refuses", node("n").label("zone", "c"),
       gang("g").affinity("zone", SelectorOperator::In, {"a", "b"}), false},
      {"affinity NotIn with the node's value refuses", node("n").label("zone", "a"),
       gang("g").affinity("zone", SelectorOperator::NotIn, {"a"}), false},
      {"affinity NotIn on a node without the label admits", node("n"),
       gang("g").affinity("zone", SelectorOperator::NotIn, {"a"}), true},
      {"affinity Exists needs the label", node("n"),
       gang("g").affinity("zone", SelectorOperator::Exists), false},
      {"affinity DoesNotExist refuses a labelled node", node("n").label("zone", "a"),
       gang("g").affinity("zone", SelectorOperator::DoesNotExist), false},
      {"a NoSchedule taint refuses pods without a toleration",
       node("n").taint("dedicated", "infer"), gang("g"), false},
      {"a NoExecute taint refuses pods without a toleration",
       node("n").taint("dedicated", "infer", TaintEffect::NoExecute), gang("g"), false},
      {"a PreferNoSchedule taint does not refuse",
       node("n").taint("dedicated", "infer", TaintEffect::PreferNoSchedule), gang("g"), true},
      {"a toleration with the taint's value admits", node("n").taint("dedicated", "infer"),
       gang("g").tolerate("dedicated", "infer"), true},
      {"a toleration with another value refuses", node("n").taint("dedicated", "infer"),
       gang("g").tolerate("dedicated", "train"), false},
      {"an Exists toleration admits any value", node("n").taint("dedicated", "infer"),
       gang("g").tolerate("dedicated"), true},
      {"an unschedulable node refuses", node("n").unschedulable(), gang("g"), false},
      {"a NotReady node refuses", node("n").notReady(), gang("g"), false},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      Engine e = engineWith({tc.node}, {queue("default")});
      REQUIRE(e.submit(tc.gang).ok());
      const Decisions d = e.schedule(0);
      CHECK(admitted(d, "g") == tc.want_admitted);
      if (!tc.want_admitted) CHECK(reasonOf(e, "g") == PendingReason::Inadmissible);
    }
  }
}

TEST_CASE("required topology keeps the gang in one rack, the smallest that holds it",
          "[queueing][placement][topology]") {
  // rack r0: 4 nodes, r1: 2 nodes, r2: 3 nodes, all empty. A 2-node gang fits all three;
  // best fit picks r1 (room for 2 pods), leaving the larger racks whole.
  std::vector<NodeSpec> nodes;
  for (int i = 0; i < 4; ++i) nodes.push_back(node("a" + std::to_string(i)).rack("r0"));
  for (int i = 0; i < 2; ++i) nodes.push_back(node("b" + std::to_string(i)).rack("r1"));
  for (int i = 0; i < 3; ++i) nodes.push_back(node("c" + std::to_string(i)).rack("r2"));
  Engine e = engineWith(nodes, {queue("default")});
  REQUIRE(e.submit(gang("two").pods(2).gpus(8).requireTopology("troupe.dev/rack")).ok());
  REQUIRE(e.submit(gang("three").pods(3).gpus(8).requireTopology("troupe.dev/rack")).ok());
  const Decisions d = e.schedule(0);
  REQUIRE(admitted(d, "two"));
  REQUIRE(admitted(d, "three"));
  CHECK(nodesOf(*admissionOf(d, "two")) == std::set<std::string>{"b0", "b1"});
  CHECK(nodesOf(*admissionOf(d, "three")) == std::set<std::string>{"c0", "c1", "c2"});
}

TEST_CASE("required topology too large for any rack is inadmissible, with the numbers",
          "[queueing][placement][topology]") {
  // Two racks of 2 nodes = 16 GPUs each; a 3-node gang (24 GPUs) fits the cluster but no
  // rack.
  Engine e = engineWith(rackOfNodes("n", 4, 2), {queue("default")});
  REQUIRE(e.submit(gang("wide").pods(3).gpus(8).requireTopology("troupe.dev/rack")).ok());
  const Decisions d = e.schedule(0);
  CHECK(d.admissions.empty());
  const auto p = pendingOf(e, d, "wide");
  REQUIRE(p.has_value());
  CHECK(p->reason == PendingReason::Inadmissible);
  // The largest rack holds 2 of its pods; a rack has 16 GPUs in all.
  CHECK(p->largest_free_domain_pods == 2);
  CHECK(p->largest_free_domain == "n-r0");
  CHECK(p->largest_domain == 16);
  CHECK_THAT(describe(*p), Catch::Contains("it needs 3 pods x 8 nvidia.com/gpu (nodes of up to "
                                           "8) in one troupe.dev/rack; the largest "
                                           "troupe.dev/rack its pods may use has 16 in all"));
}

TEST_CASE("preferred topology falls back to the whole cluster", "[queueing][placement][topology]") {
  Engine e = engineWith(rackOfNodes("n", 4, 2), {queue("default")});
  REQUIRE(e.submit(gang("wide").pods(3).gpus(8).preferTopology("troupe.dev/rack")).ok());
  const Decisions d = e.schedule(0);
  REQUIRE(admitted(d, "wide"));
  CHECK(nodesOf(*admissionOf(d, "wide")).size() == 3);
}

TEST_CASE("bin packing: small pods go to the busy node and keep whole nodes free",
          "[queueing][placement][packing]") {
  // n-0 runs a 6-GPU pod (2 free), n-1 is empty. A 2-GPU pod fits both; packing picks
  // n-0 so that n-1 stays whole for an 8-GPU pod.
  Engine e = engineWith(rackOfNodes("n", 2, 2), {queue("default")});
  REQUIRE(e.addRunning(runningOn(gang("busy").pods(1).gpus(6), {"n-0"})).ok());
  REQUIRE(e.submit(gang("small").pods(1).gpus(2).submittedAt(1)).ok());
  REQUIRE(e.submit(gang("whole").pods(1).gpus(8).submittedAt(2)).ok());
  const Decisions d = e.schedule(5);
  REQUIRE(admitted(d, "small"));
  REQUIRE(admitted(d, "whole"));
  CHECK(admissionOf(d, "small")->pods[0].node == "n-0");
  CHECK(admissionOf(d, "small")->pods[0].gpus == std::vector<int>{6, 7});
  CHECK(admissionOf(d, "whole")->pods[0].node == "n-1");
}

TEST_CASE("a pod's GPUs come from one NVLink island and NUMA node", "[queueing][placement][gpu]") {
  // Islands {0-3} {4-7}; NUMA {0,1,4,5} {2,3,6,7}. GPUs 0 and 4 are busy.
  GpuGroups groups = GpuGroups::of({0x0F, 0xF0}, {0x33, 0xCC});
  const std::uint64_t free = 0xFF & ~std::uint64_t{0x11};
  SECTION("two GPUs: the smallest island-and-NUMA group that has two") {
    // island0 ∩ numa0 = {0,1} has 1 free; island0 ∩ numa1 = {2,3} has 2: take 2,3.
    CHECK(pickGpus(free, groups, 2) == 0x0C);
  }
  SECTION("three GPUs: one island") {
    // island0 free {1,2,3}: 3 GPUs, all in one island (across NUMA nodes).
    CHECK(pickGpus(free, groups, 3) == 0x0E);
  }
  SECTION("six GPUs: lowest free indices") { CHECK(pickGpus(free, groups, 6) == 0xEE); }
  SECTION("more than free: none") { CHECK(pickGpus(free, groups, 7) == 0); }
}

TEST_CASE("the engine hands out island-local GPUs on a described node",
          "[queueing][placement][gpu]") {
  Engine e = engineWith({node("n").islands({{0, 1, 2, 3}, {4, 5, 6, 7}})}, {queue("default")});
  REQUIRE(e.addRunning(runningOn(gang("busy").pods(1).gpus(1), {"n"})).ok());  // holds GPU 0
  REQUIRE(e.submit(gang("pair").pods(2).gpus(4).submittedAt(1)).ok());
  // 7 GPUs free, 8 wanted: waits.
  CHECK(e.schedule(1).admissions.empty());
  REQUIRE(e.remove("pair").ok());
  REQUIRE(e.submit(gang("quad").pods(1).gpus(4).submittedAt(2)).ok());
  const Decisions d = e.schedule(2);
  REQUIRE(admitted(d, "quad"));
  // Island {1,2,3} has only 3 free; island {4..7} has 4: the pod gets 4..7.
  CHECK(admissionOf(d, "quad")->pods[0].gpus == std::vector<int>{4, 5, 6, 7});
}

TEST_CASE("cpu and memory are part of the fit, not only GPUs", "[queueing][placement]") {
  // A node with 8 GPUs but 16 cores: two pods of 1 GPU and 10 cores do not fit together.
  Engine e = engineWith({node("n").cpu(16000)}, {queue("default")});
  REQUIRE(e.submit(gang("g").pods(2).gpus(1).cpu(10000)).ok());
  const Decisions d = e.schedule(0);
  CHECK(d.admissions.empty());
  CHECK(reasonOf(e, "g") == PendingReason::Inadmissible);
}

TEST_CASE("a gang with two pod shapes places both", "[queueing][placement]") {
  Engine e = engineWith(rackOfNodes("n", 2, 2), {queue("default")});
  REQUIRE(
      e.submit(gang("mpi").pods(2).gpus(8).plusPods(1, ResourceVector::of(0, 2000, kGiB))).ok());
  const Decisions d = e.schedule(0);
  REQUIRE(admitted(d, "mpi"));
  const Admission& a = *admissionOf(d, "mpi");
  CHECK(a.pods.size() == 3);
  CHECK(a.pod_set_counts == std::vector<std::int32_t>{2, 1});
}

}  // namespace
}  // namespace troupe::queueing

namespace troupe::queueing {
namespace {

using namespace testing;

TEST_CASE("placement finds the one free node among many full ones, as nodes fill and free",
          "[queueing][placement]") {
  // 40 nodes: scans skip runs of nodes with too few free GPUs, so the free node is
  // found wherever it sits, and a node freed in a run skipped before is found again.
  Engine e = engineWith(rackOfNodes("n", 40, 40), {queue("a")});
  for (int i = 0; i < 40; ++i) {
    if (i == 37) continue;
    REQUIRE(e.addRunning(runningOn(gang("full-" + std::to_string(i)).queue("a").gpus(8),
                                   {"n-" + std::to_string(i)}))
                .ok());
  }
  REQUIRE(e.submit(gang("first").queue("a").gpus(8).submittedAt(1)).ok());
  Decisions d = e.schedule(10);
  REQUIRE(admitted(d, "first"));
  CHECK(admissionOf(d, "first")->pods[0].node == "n-37");
  REQUIRE(e.submit(gang("second").queue("a").gpus(2).submittedAt(2)).ok());
  d = e.schedule(11);
  CHECK_FALSE(admitted(d, "second"));
  REQUIRE(e.remove("full-3").ok());
  d = e.schedule(12);
  REQUIRE(admitted(d, "second"));
  CHECK(admissionOf(d, "second")->pods[0].node == "n-3");
  REQUIRE(e.submit(gang("third").queue("a").gpus(8).submittedAt(3)).ok());
  d = e.schedule(13);
  CHECK_FALSE(admitted(d, "third"));
  REQUIRE(e.submit(gang("fourth").queue("a").gpus(6).submittedAt(4)).ok());
  d = e.schedule(14);
  REQUIRE(admitted(d, "fourth"));
  CHECK(admissionOf(d, "fourth")->pods[0].node == "n-3");
}

}  // namespace
}  // namespace troupe::queueing
