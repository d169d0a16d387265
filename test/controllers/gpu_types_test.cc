#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

#include "controllers/action_plan.h"
#include "controllers/cluster_snapshot.h"
#include "controllers/engine_loader.h"
#include "controllers/gpu_types.h"
#include "controllers/pending_status.h"
#include "test/controllers/builders.h"

using namespace troupe::controllers;
using namespace troupe::controllers::testing;
using troupe::queueing::kGpu;
using troupe::queueing::VariantFungibility;

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

// The product its pods select and the GPUs of `type` each asks, of one way to run a gang.
std::pair<std::string, std::int64_t> productAndAsk(
    const ClusterSnapshot& cluster, const std::vector<troupe::queueing::PodSet>& sets,
    const std::string& type) {
  REQUIRE(sets.size() == 1);
  const auto& shape = *sets[0].shape;
  std::string product;
  for (const auto& [key, value] : shape.node_selector)
    if (key == "nvidia.com/gpu.product") product = value;
  return {product, shape.requests[slotOf(cluster, "gpu.troupe.dev/" + type)]};
}

TEST_CASE("a waiting gang offers the engine every type it accepts, most preferred first",
          "[controllers][gpu-types]") {
  struct Case {
    std::string name;
    std::vector<std::string> accepted;
    std::vector<std::string> want_ways;  // variant, then its alternatives
  };
  const std::vector<Case> cases = {
      {"H100s preferred, A100s taken", {"h100", "a100"}, {"h100", "a100"}},
      {"A100s preferred, H100s taken", {"a100", "h100"}, {"a100", "h100"}},
      {"A100s only: no alternative", {"a100"}, {"a100"}},
      // Any type: every type of the cluster, by name.
      {"any type", {}, {"a100", "h100"}},
  };
  for (const auto& tc : cases) DYNAMIC_SECTION(tc.name) {
      // An elastic gang of 4 pods of 4 GPUs, at least 2: every way is as elastic.
      auto objects = twoTypes();
      objects.queues = {queue("team-a").guaranteedGpus(16)};
      objects.pod_groups = {typedGroup("g", tc.accepted)};
      objects.pods = gangPods("g", 4, 4);
      auto cluster = buildClusterSnapshot(objects, {});
      REQUIRE(cluster.snapshot.pending.size() == 1);
      const auto& spec = cluster.snapshot.pending[0];
      std::vector<std::string> ways{spec.variant};
      for (const auto& a : spec.alternatives) ways.push_back(a.name);
      CHECK(ways == tc.want_ways);
      CHECK(cluster.gangs.at("ml/g").gpu_type == tc.want_ways[0]);
      const std::map<std::string, std::string> product{{"h100", kH100}, {"a100", kA100}};
      // Each way's pods select its product and ask 4 GPUs of its type, 2 of 4 at least.
      CHECK(productAndAsk(cluster, spec.pod_sets, spec.variant) ==
            std::pair{product.at(spec.variant), std::int64_t{4}});
      for (const auto& a : spec.alternatives) {
        CHECK(productAndAsk(cluster, a.pod_sets, a.name) ==
              std::pair{product.at(a.name), std::int64_t{4}});
        CHECK(a.pod_sets[0].count == 4);
        CHECK(a.pod_sets[0].min_count == 2);
      }
      CHECK(spec.pod_sets[0].min_count == 2);
    }
}

TEST_CASE("a running gang's variant is the type of its nodes, the other types its alternatives",
          "[controllers][gpu-types]") {
  struct Case {
    std::string name;
    std::vector<std::string> accepted;
    std::vector<std::string> nodes;
    std::vector<std::string> want_ways;
  };
  const std::vector<Case> cases = {
      // It prefers H100s but got A100s: it runs on a100, h100 stays an alternative.
      {"H100s preferred, runs on A100s", {"h100", "a100"}, {"a1", "a1"}, {"a100", "h100"}},
      {"H100s preferred, runs on them", {"h100", "a100"}, {"h1", "h2"}, {"h100", "a100"}},
      // Any type, on H100s: a100 is the other.
      {"any type, runs on H100s", {}, {"h1", "h1"}, {"h100", "a100"}},
      // Bound to H100s though it accepts A100s only (it ran before it said so): it stays.
      {"A100s only, runs on H100s", {"a100"}, {"h1", "h2"}, {"h100", "a100"}},
      // On a node of no type: as without types.
      {"on a node of no type", {"h100", "a100"}, {"cpu1", "cpu1"}, {""}},
  };
  for (const auto& tc : cases) DYNAMIC_SECTION(tc.name) {
      auto objects = twoTypes();
      objects.queues = {queue("team-a").guaranteedGpus(16)};
      objects.pod_groups = {typedGroup("g", tc.accepted)};
      objects.pods = {pod("ml", "g-0").group("g").index(0).gpus(4).boundTo(tc.nodes[0], "0,1,2,3"),
                      pod("ml", "g-1").group("g").index(1).gpus(4).boundTo(tc.nodes[1], "4,5,6,7")};
      auto cluster = buildClusterSnapshot(objects, {});
      REQUIRE(cluster.snapshot.running.size() == 1);
      const auto& spec = cluster.snapshot.running[0].spec;
      std::vector<std::string> ways{spec.variant};
      for (const auto& a : spec.alternatives) ways.push_back(a.name);
      CHECK(ways == tc.want_ways);
      CHECK(cluster.gangs.at("ml/g").gpu_type == tc.want_ways[0]);
      if (!spec.variant.empty()) {
        // 2 pods x 4 GPUs of its type held.
        CHECK(cluster.gangs.at("ml/g")
                  .bound_requests[slotOf(cluster, "gpu.troupe.dev/" + spec.variant)] == 8);
      }
    }
}

TEST_CASE("a gang admitted on its second type comes back from its pods as the engine holds it",
          "[controllers][gpu-types]") {
  // h1 and h2 are full with a gang of team-b that may not be preempted; a1 is free. ml/g
  // (team-a, 2 x 4 GPUs, H100s then A100s) does not fit on h100: whenCanPreempt
  // TryNextType (the default) tries a100, where 8 of a1's 8 fit.
  auto objects = twoTypes();
  objects.queues = {queue("team-a").guaranteedGpus(16), queue("team-b")};
  Json hold = podGroup("ml", "hold").minMember(2).queue("team-b");
  hold["metadata"]["annotations"]["troupe.dev/preemptible"] = "false";
  objects.pod_groups = {typedGroup("g", {"h100", "a100"}), hold};
  objects.pods = gangPods("g", 2, 4);
  for (int i = 0; i < 2; ++i)
    objects.pods.push_back(pod("ml", "hold-" + std::to_string(i))
                               .group("hold")
                               .index(i)
                               .gpus(8)
                               .boundTo(i == 0 ? "h1" : "h2", "0,1,2,3,4,5,6,7"));
  auto loaded = loadEngine(buildClusterSnapshot(objects, {}), {});
  REQUIRE(loaded.problems.empty());
  const auto d = loaded.engine.schedule(0);
  REQUIRE(d.admissions.size() == 1);
  CHECK(d.admissions[0].variant == "a100");
  // Its pods bound where the engine put them: the next snapshot holds it running on
  // a100 with h100 its alternative, exactly as the engine does (no remove and add again).
  std::vector<Json> bound;
  for (std::size_t i = 0; i < d.admissions[0].pods.size(); ++i) {
    const auto& p = d.admissions[0].pods[i];
    std::string gpus;
    for (int g : p.gpus) gpus += (gpus.empty() ? "" : ",") + std::to_string(g);
    bound.push_back(pod("ml", "g-" + std::to_string(i))
                        .group("g")
                        .index(static_cast<int>(i))
                        .gpus(4)
                        .boundTo(p.node, gpus));
  }
  for (int i = 0; i < 2; ++i)
    bound.push_back(pod("ml", "hold-" + std::to_string(i))
                        .group("hold")
                        .index(i)
                        .gpus(8)
                        .boundTo(i == 0 ? "h1" : "h2", "0,1,2,3,4,5,6,7"));
  objects.pods = bound;
  auto after = buildClusterSnapshot(objects, {});
  const troupe::queueing::RunningGang* g = nullptr;
  for (const auto& r : after.snapshot.running)
    if (r.spec.name == "ml/g") g = &r;
  REQUIRE(g != nullptr);
  CHECK(g->spec.variant == "a100");
  const auto held = loaded.engine.running("ml/g");
  REQUIRE(held.has_value());
  CHECK(held->spec.alternatives == g->spec.alternatives);
  CHECK(loaded.engine.holdsRunning(*g, false));
}

TEST_CASE("pods are bound with the type the engine admitted their gang on, or grows it on",
          "[controllers][gpu-types][plan]") {
  // ml/g (2 x 4 GPUs, H100s then A100s) is admitted on its alternative a100; ml/e, elastic
  // (1 to 2 pods of 8), runs on h1 and grows onto h2. Each binding carries the type, which
  // the pod's troupe.dev/gpu-type annotation is written from.
  auto objects = twoTypes();
  objects.queues = {queue("team-a").guaranteedGpus(32)};
  objects.pod_groups = {typedGroup("g", {"h100", "a100"}), podGroup("ml", "e").minMember(1)};
  objects.pods = gangPods("g", 2, 4);
  objects.pods.push_back(
      pod("ml", "e-0").group("e").index(0).gpus(8).boundTo("h1", "0,1,2,3,4,5,6,7"));
  objects.pods.push_back(pod("ml", "e-1").group("e").index(1).gpus(8));
  auto cluster = buildClusterSnapshot(objects, {});
  troupe::queueing::Decisions d;
  d.admissions.push_back(
      {"ml/g", "team-a", {{0, "a1", {0, 1, 2, 3}}, {0, "a1", {4, 5, 6, 7}}}, {2}, "a100"});
  d.resizes.push_back({"ml/e", "team-a", {2}, {{0, "h2", {0, 1, 2, 3, 4, 5, 6, 7}}}, {}, ""});
  auto plan = planActions(d, cluster, 100);
  std::map<std::string, std::string> type_of;  // pod -> gpu type
  for (const auto& record : plan.bindings)
    for (const auto& b : record.bindings) type_of[b.pod] = b.gpu_type;
  CHECK(type_of ==
        std::map<std::string, std::string>{{"g-0", "a100"}, {"g-1", "a100"}, {"e-1", "h100"}});
}

TEST_CASE("why a gang waits names the type it waits for and that type's resource by name",
          "[controllers][gpu-types][pending]") {
  // The engine names slots past memory "extended-<slot>" and gives the slot: a gang of
  // 2 x 8 waiting for h100, whose dominant resource is h100's slot, reads
  // gpu.troupe.dev/h100 in its status.
  troupe::queueing::ResourceNames names;
  const std::size_t milli = names.slotFor("troupe.dev/gpu-milli");
  const std::size_t h100 = names.slotFor("gpu.troupe.dev/h100");
  troupe::queueing::PendingExplanation e;
  e.gang = "ml/g";
  e.queue = "team-a";
  e.variant = "h100";
  e.reason = troupe::queueing::PendingReason::OverFairShare;
  e.dominant_resource = "extended-" + std::to_string(h100);
  e.dominant_slot = static_cast<std::int32_t>(h100);
  e.request[kGpu] = 16;
  e.request[milli] = 16000;
  e.request[h100] = 16;
  e.queue_guaranteed = 8;  // of its 8 guaranteed H100s it holds 8, at a fair share of 8
  e.queue_allocated = 8;
  e.queue_fair_share = 8;
  const auto pending = renderPendingStatus(e, names);
  CHECK(pending["gpuType"] == "h100");
  CHECK(pending["request"]["gpu.troupe.dev/h100"] == "16");
  CHECK(pending["guaranteed"] == Json{{"gpu.troupe.dev/h100", "8"}});
  CHECK(pending["fairShare"] == Json{{"gpu.troupe.dev/h100", "8"}});
  CHECK_THAT(pending["message"].get<std::string>(),
             Catch::Contains("16 gpu.troupe.dev/h100") && Catch::Contains("variant h100"));
}

TEST_CASE("a queue's gpuTypeFungibility becomes the engine's whenBorrowing and whenPreempting",
          "[controllers][gpu-types]") {
  struct Case {
    std::string name;
    Json fungibility;  // null: unset
    VariantFungibility want_borrowing;
    VariantFungibility want_preempting;
  };
  const auto kStay = VariantFungibility::Stay;
  const auto kTryNext = VariantFungibility::TryNext;
  const std::vector<Case> cases = {
      // Kueue's defaults: borrow on the type it prefers, but try the next before preempting.
      {"unset: Borrow, TryNextType", Json(), kStay, kTryNext},
      {"Borrow, Preempt: it stays on its type either way",
       {{"whenCanBorrow", "Borrow"}, {"whenCanPreempt", "Preempt"}},
       kStay,
       kStay},
      {"TryNextType both ways",
       {{"whenCanBorrow", "TryNextType"}, {"whenCanPreempt", "TryNextType"}},
       kTryNext,
       kTryNext},
      {"only whenCanBorrow set", {{"whenCanBorrow", "TryNextType"}}, kTryNext, kTryNext},
  };
  for (const auto& tc : cases) DYNAMIC_SECTION(tc.name) {
      auto objects = twoTypes();
      Json q = queue("team-a").guaranteedGpus(16);
      if (!tc.fungibility.is_null()) q["spec"]["gpuTypeFungibility"] = tc.fungibility;
      objects.queues = {q};
      auto cluster = buildClusterSnapshot(objects, {});
      REQUIRE(cluster.snapshot.queues.size() == 1);
      CHECK(cluster.snapshot.queues[0].when_borrowing == tc.want_borrowing);
      CHECK(cluster.snapshot.queues[0].when_preempting == tc.want_preempting);
    }
}

TEST_CASE("a running gang counts against the type of its nodes, a CPU gang has no type",
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
