#include <catch2/catch.hpp>

#include <algorithm>

#include "controllers/cluster_snapshot.h"
#include "controllers/gpu_types.h"
#include "test/controllers/builders.h"

using namespace troupe::controllers;
using namespace troupe::controllers::testing;
using troupe::queueing::kGpu;

namespace {

const char* kH100 = "NVIDIA-H100-80GB-HBM3";
const char* kA100 = "NVIDIA-A100-SXM4-80GB";

// A GPU node whose nvidia.com/gpu.product is `product`.
Json typedNode(const std::string& name, const std::string& product) {
  Json n = node(name).gpus(8);
  n["metadata"]["labels"]["nvidia.com/gpu.product"] = product;
  return n;
}

// A GPUType whose nodes carry nvidia.com/gpu.product: `product`.
Json gpuType(const std::string& name, const std::string& product) {
  return {{"apiVersion", "troupe.dev/v1alpha1"},
          {"kind", "GPUType"},
          {"metadata", {{"name", name}}},
          {"spec", {{"nodeLabels", {{"nvidia.com/gpu.product", product}}}}}};
}

// A PodGroup of minMember 2 that accepts `types`.
Json typedGroup(const std::string& name, const std::vector<std::string>& types) {
  Json g = podGroup("ml", name).minMember(2);
  g["spec"]["gpuTypes"] = types;
  return g;
}

// team-a guaranteed `gpus` GPUs, `h100` of them H100s.
Json typedQueue(int gpus, int h100) {
  Json q = queue("team-a").guaranteedGpus(gpus);
  q["spec"]["resources"]["nvidia.com/gpu"]["gpuTypes"] = {
      {{"name", "h100"}, {"guaranteed", std::to_string(h100)}}};
  return q;
}

// Two H100 nodes and one A100 node, the types of both, and one that is not a GPU node.
ApiObjects twoTypes() {
  ApiObjects objects;
  objects.nodes = {typedNode("a1", kA100), node("cpu1").gpus(0), typedNode("h1", kH100),
                   typedNode("h2", kH100)};
  objects.gpu_types = {gpuType("a100", kA100), gpuType("h100", kH100)};
  return objects;
}

std::vector<Json> gangPods(const std::string& group, int n, int gpus) {
  std::vector<Json> out;
  for (int i = 0; i < n; ++i)
    out.push_back(pod("ml", group + "-" + std::to_string(i)).group(group).index(i).gpus(gpus));
  return out;
}

std::size_t slotOf(const ClusterSnapshot& cluster, const std::string& resource) {
  for (std::size_t s = 0; s < cluster.names.size(); ++s)
    if (cluster.names.name(s) == resource) return s;
  FAIL("no slot for " << resource);
  return 0;
}

}  // namespace

TEST_CASE("nodes of a GPU type offer its resource, as many as their GPUs",
          "[controllers][gpu-types]") {
  auto cluster = buildClusterSnapshot(twoTypes(), {});
  REQUIRE(cluster.snapshot.nodes.size() == 4);
  const auto h100 = slotOf(cluster, "gpu.troupe.dev/h100");
  const auto a100 = slotOf(cluster, "gpu.troupe.dev/a100");
  const auto& nodes = cluster.snapshot.nodes;  // a1, cpu1, h1, h2
  CHECK(nodes[0].allocatable[a100] == 8);
  CHECK(nodes[0].allocatable[h100] == 0);
  CHECK(nodes[1].allocatable[a100] == 0);  // no product label: of no type
  CHECK(nodes[1].allocatable[h100] == 0);
  CHECK(nodes[2].allocatable[h100] == 8);
  CHECK(nodes[3].allocatable[h100] == 8);
  CHECK(nodes[3].allocatable[a100] == 0);
}

TEST_CASE("a queue's per-type quotas are the quotas of the types' resources",
          "[controllers][gpu-types]") {
  auto objects = twoTypes();
  objects.queues = {typedQueue(16, 8)};
  auto cluster = buildClusterSnapshot(objects, {});
  REQUIRE(cluster.snapshot.queues.size() == 1);
  const auto& q = cluster.snapshot.queues[0];
  CHECK(q.guaranteed[kGpu] == 16);
  CHECK(q.guaranteed[slotOf(cluster, "gpu.troupe.dev/h100")] == 8);
  CHECK(q.guaranteed[slotOf(cluster, "gpu.troupe.dev/a100")] == 0);
}

TEST_CASE("a waiting gang goes to the engine on the type it prefers, pods and selector alike",
          "[controllers][gpu-types]") {
  struct Case {
    std::string name;
    std::vector<std::string> accepted;
    std::string want_type;
    std::string want_product;  // the node selector's nvidia.com/gpu.product; empty: none
  };
  std::vector<Case> cases = {
      {"H100s preferred", {"h100", "a100"}, "h100", kH100},
      {"A100s only", {"a100"}, "a100", kA100},
      // Any type: the types by name, a100 first.
      {"any type", {}, "a100", kA100},
      // A type no GPUType defines: it asks for a resource no node has, and waits.
      {"a type not defined yet", {"b200"}, "b200", ""},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto objects = twoTypes();
      objects.queues = {queue("team-a").guaranteedGpus(16)};
      objects.pod_groups = {typedGroup("g", tc.accepted)};
      objects.pods = gangPods("g", 2, 4);
      auto cluster = buildClusterSnapshot(objects, {});
      REQUIRE(cluster.snapshot.pending.size() == 1);
      CHECK(cluster.gangs.at("ml/g").gpu_type == tc.want_type);
      const auto& sets = cluster.snapshot.pending[0].pod_sets;
      REQUIRE(sets.size() == 1);
      const auto& shape = *sets[0].shape;
      // Each pod asks 4 GPUs, and 4 of its type.
      CHECK(shape.requests[kGpu] == 4);
      CHECK(shape.requests[slotOf(cluster, "gpu.troupe.dev/" + tc.want_type)] == 4);
      const auto product =
          std::find_if(shape.node_selector.begin(), shape.node_selector.end(),
                       [](const auto& l) { return l.first == "nvidia.com/gpu.product"; });
      if (tc.want_product.empty()) {
        CHECK(product == shape.node_selector.end());
      } else {
        REQUIRE(product != shape.node_selector.end());
        CHECK(product->second == tc.want_product);
      }
    }
  }
}

TEST_CASE("a running gang counts against the type of its nodes; a CPU gang has no type",
          "[controllers][gpu-types]") {
  auto objects = twoTypes();
  objects.queues = {queue("team-a").guaranteedGpus(16)};
  objects.pod_groups = {podGroup("ml", "run").minMember(2), podGroup("ml", "cpu")};
  objects.pods = {pod("ml", "run-0").group("run").index(0).gpus(8).boundTo("h1", "0,1,2,3,4,5,6,7"),
                  pod("ml", "run-1").group("run").index(1).gpus(8).boundTo("h2", "0,1,2,3,4,5,6,7"),
                  pod("ml", "cpu-0").group("cpu").index(0).gpus(0)};
  auto cluster = buildClusterSnapshot(objects, {});
  REQUIRE(cluster.snapshot.running.size() == 1);
  CHECK(cluster.gangs.at("ml/run").gpu_type == "h100");
  // 2 pods x 8 H100s held.
  CHECK(cluster.gangs.at("ml/run").bound_requests[slotOf(cluster, "gpu.troupe.dev/h100")] == 16);
  CHECK(cluster.snapshot.running[0].spec.pod_sets[0].shape->requests[kGpu] == 8);
  REQUIRE(cluster.snapshot.pending.size() == 1);
  CHECK(cluster.gangs.at("ml/cpu").gpu_type.empty());
}

TEST_CASE("without GPU types nothing changes", "[controllers][gpu-types]") {
  ApiObjects objects;
  objects.nodes = {node("n1").gpus(8)};
  objects.queues = {queue("team-a").guaranteedGpus(8)};
  objects.pod_groups = {podGroup("ml", "g").minMember(2)};
  objects.pods = gangPods("g", 2, 4);
  auto cluster = buildClusterSnapshot(objects, {});
  // No type's slot (GPU, CPU, memory and troupe.dev/gpu-milli, docs/fractional-gpus.md).
  for (std::size_t slot = 0; slot < cluster.names.size(); ++slot)
    CHECK(cluster.names.name(slot).rfind("gpu.troupe.dev/", 0) != 0);
  REQUIRE(cluster.snapshot.pending.size() == 1);
  CHECK(cluster.snapshot.pending[0].pod_sets[0].shape->node_selector.empty());
  CHECK(cluster.gangs.at("ml/g").gpu_type.empty());
}
