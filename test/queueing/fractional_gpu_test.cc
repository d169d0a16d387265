// Pods asking a fraction of one GPU (PodShape::gpu_milli): they share GPU indices,
// bin-packed, never past the whole of one; whole-GPU pods never get a shared index; quota
// counts the fraction through the thousandths slot the caller gives them.
#include <catch2/catch.hpp>

#include "test/queueing/builders.h"
#include "test/queueing/scenario.h"

namespace troupe::queueing {
namespace {

using namespace testing;

// The extended slot holding thousandths of a GPU, as the operator's conversion fills it
// (troupe.dev/gpu-milli): 1000 per whole GPU, the fraction for a fractional pod.
constexpr std::size_t kMilli = kFirstExtended;

// A node of `gpus` GPUs, its thousandths slot 1000 per GPU.
NodeSpec gpuNode(const std::string& name, std::int64_t gpus) {
  NodeSpec n = node(name).gpus(gpus);
  n.allocatable[kMilli] = gpus * 1000;
  return n;
}

// A gang of `pods` pods asking `milli` thousandths of one GPU each and no whole GPU.
GangSpec fractional(GangBuilder b, std::int32_t milli) {
  GangSpec g = b.gpus(0);
  auto shape = std::make_shared<PodShape>(*g.pod_sets[0].shape);
  shape->gpu_milli = milli;
  shape->requests[kMilli] = milli;
  g.pod_sets[0].shape = shape;
  return g;
}

// A gang of whole-GPU pods, its thousandths slot filled as for any GPU pod.
GangSpec whole(GangBuilder b, std::int64_t gpus) {
  GangSpec g = b.gpus(gpus);
  auto shape = std::make_shared<PodShape>(*g.pod_sets[0].shape);
  shape->requests[kMilli] = gpus * 1000;
  g.pod_sets[0].shape = shape;
  return g;
}

// The GPU indices of an admitted single-pod gang's pod, and its node.
std::vector<int> gpusOf(const Decisions& d, const std::string& gang) {
  const Admission* a = admissionOf(d, gang);
  REQUIRE(a != nullptr);
  REQUIRE(a->pods.size() == 1);
  return a->pods[0].gpus;
}

// One pod on `node` holding GPU `gpu` (a running gang of one pod).
RunningGang runningOnGpu(GangSpec spec, const std::string& node, int gpu) {
  RunningGang r;
  r.spec = std::move(spec);
  r.pods.push_back(PodPlacement{0, node, {gpu}, false});
  return r;
}

TEST_CASE("four half-GPU pods on a 2-GPU node share its two GPUs, two on each",
          "[queueing][fractional-gpu]") {
  Engine e = engineWith({gpuNode("n", 2)}, {queue("default")});
  for (const char* name : {"h1", "h2", "h3", "h4"})
    REQUIRE(e.submit(fractional(gang(name), 500)).ok());
  const Decisions d = e.schedule(0);
  // h1 takes free GPU 0 (500 of 1000); h2 joins it (1000: full); h3 takes free GPU 1,
  // h4 joins it. By name: h1 .. h4.
  CHECK(gpusOf(d, "h1") == std::vector<int>{0});
  CHECK(gpusOf(d, "h2") == std::vector<int>{0});
  CHECK(gpusOf(d, "h3") == std::vector<int>{1});
  CHECK(gpusOf(d, "h4") == std::vector<int>{1});
  // 4 x 500 = 2000 = both GPUs: a fifth half pod does not fit anywhere.
  REQUIRE(e.submit(fractional(gang("h5").submittedAt(1), 500)).ok());
  CHECK_FALSE(admitted(e.schedule(1), "h5"));
  CHECK(e.isPending("h5"));
}

TEST_CASE("three 0.3 pods share one GPU, then a 0.5 pod takes the other, a 0.1 pod the fullest",
          "[queueing][fractional-gpu]") {
  Engine e = engineWith({gpuNode("n", 2)}, {queue("default")});
  for (const char* name : {"a", "b", "c"}) REQUIRE(e.submit(fractional(gang(name), 300)).ok());
  Decisions d = e.schedule(0);
  // 300 + 300 + 300 = 900 <= 1000: all three on GPU 0, GPU 1 stays free.
  CHECK(gpusOf(d, "a") == std::vector<int>{0});
  CHECK(gpusOf(d, "b") == std::vector<int>{0});
  CHECK(gpusOf(d, "c") == std::vector<int>{0});
  // 900 + 500 = 1400 > 1000: the half pod takes the free GPU 1.
  REQUIRE(e.submit(fractional(gang("half").submittedAt(1), 500)).ok());
  d = e.schedule(1);
  CHECK(gpusOf(d, "half") == std::vector<int>{1});
  // Room: GPU 0 has 100 left, GPU 1 has 500. Best fit puts 0.1 where the least is left.
  REQUIRE(e.submit(fractional(gang("tenth").submittedAt(2), 100)).ok());
  d = e.schedule(2);
  CHECK(gpusOf(d, "tenth") == std::vector<int>{0});
  // GPU 0 is full (1000); the last 500 of GPU 1 take a second half pod, and nothing more.
  REQUIRE(e.submit(fractional(gang("half2").submittedAt(3), 500)).ok());
  REQUIRE(e.submit(fractional(gang("crumb").submittedAt(4), 100)).ok());
  d = e.schedule(3);
  CHECK(gpusOf(d, "half2") == std::vector<int>{1});
  CHECK_FALSE(admitted(d, "crumb"));
}

TEST_CASE("a whole-GPU gang never lands on a GPU fractions share", "[queueing][fractional-gpu]") {
  // One half pod runs on GPU 0 of a 2-GPU node: GPU 1 is the only whole one left.
  Engine e = engineWith({gpuNode("n", 2)}, {queue("default")});
  REQUIRE(e.addRunning(runningOnGpu(fractional(gang("half"), 500), "n", 0)).ok());
  // A gang of 2 pods x 1 GPU needs two whole GPUs: 2 > 1 free, although 2000 - 500 = 1500
  // thousandths and 2 GPUs in the whole-GPU slot are unused on the node.
  REQUIRE(e.submit(whole(gang("pair").pods(2).submittedAt(1), 1)).ok());
  Decisions d = e.schedule(1);
  CHECK_FALSE(admitted(d, "pair"));
  CHECK(e.isPending("pair"));
  // A single whole-GPU pod gets GPU 1, never the shared GPU 0.
  REQUIRE(e.submit(whole(gang("solo").submittedAt(2), 1)).ok());
  d = e.schedule(2);
  CHECK(gpusOf(d, "solo") == std::vector<int>{1});
  // And a running whole-GPU pod cannot be handed the shared GPU either.
  Engine e2 = engineWith({gpuNode("n", 2)}, {queue("default")});
  REQUIRE(e2.addRunning(runningOnGpu(fractional(gang("half"), 500), "n", 0)).ok());
  CHECK_FALSE(e2.addRunning(runningOnGpu(whole(gang("w"), 1), "n", 0)).ok());
  // Once the half pod is gone, GPU 0 is whole again: the pair fits on GPUs 0 and 1.
  REQUIRE(e2.remove("half").ok());
  REQUIRE(e2.submit(whole(gang("pair").pods(2), 1)).ok());
  CHECK(admitted(e2.schedule(3), "pair"));
}

TEST_CASE("quota counts a half-GPU pod as 0.5: a queue limited to 1 GPU runs two, not three",
          "[queueing][fractional-gpu]") {
  // Limit 1 GPU, mirrored as 1000 thousandths. The node has room for 8 GPUs' worth.
  QueueSpec team = queue("team");
  team.limit[kGpu] = 1;
  team.limit[kMilli] = 1000;
  Engine e = engineWith({gpuNode("n", 8)}, {team});
  for (const char* name : {"h1", "h2", "h3"})
    REQUIRE(e.submit(fractional(gang(name).queue("team"), 500)).ok());
  const Decisions d = e.schedule(0);
  // 500 + 500 = 1000 <= 1000; a third would make 1500 > 1000.
  CHECK(admitted(d, "h1"));
  CHECK(admitted(d, "h2"));
  CHECK_FALSE(admitted(d, "h3"));
  CHECK(reasonOf(e, "h3") == PendingReason::QueueAtLimit);
  // Allocated: 0 whole GPUs, 1000 thousandths.
  CHECK(e.queueStatus("team")->allocated[kGpu] == 0);
  CHECK(e.queueStatus("team")->allocated[kMilli] == 1000);
}

TEST_CASE("a fraction must be below one GPU and come without whole GPUs",
          "[queueing][fractional-gpu]") {
  Engine e = engineWith({gpuNode("n", 2)}, {queue("default")});
  CHECK_FALSE(e.submit(fractional(gang("whole-thousand"), 1000)).ok());
  GangSpec both = fractional(gang("both"), 500);
  auto shape = std::make_shared<PodShape>(*both.pod_sets[0].shape);
  shape->requests[kGpu] = 1;
  both.pod_sets[0].shape = shape;
  const Status s = e.submit(both);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().field_path == "gangs[both].podSets[0].gpuMilli");
}

}  // namespace
}  // namespace troupe::queueing
