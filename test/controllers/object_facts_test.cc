#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <memory>

#include "controllers/cluster_snapshot.h"
#include "controllers/object_facts.h"
#include "test/controllers/builders.h"

using namespace troupe::controllers;
using namespace troupe::controllers::testing;
using troupe::queueing::kCpu;
using troupe::queueing::kGpu;

namespace {

ObjectRef shared(Json object) { return std::make_shared<const Json>(std::move(object)); }

Json withExtended(Json pod, const std::string& resource, int amount) {
  pod["spec"]["containers"][0]["resources"]["limits"][resource] = std::to_string(amount);
  return pod;
}

// What the engine is given, in a form two builds can be compared by.
Json engineInputs(const ClusterSnapshot& cluster) {
  Json out = Json::object();
  for (std::size_t slot = 0; slot < cluster.names.size(); ++slot)
    out["names"].push_back(cluster.names.name(slot));
  for (const auto& n : cluster.snapshot.nodes) {
    Json alloc = Json::array();
    for (std::size_t slot = 0; slot < cluster.names.size(); ++slot)
      alloc.push_back(n.allocatable[slot]);
    out["nodes"][n.name] = {{"allocatable", alloc}, {"ready", n.ready}};
  }
  auto gangs = [&](const auto& specs, const char* key) {
    for (const auto& g : specs) {
      Json sets = Json::array();
      for (const auto& ps : g.pod_sets) {
        Json requests = Json::array();
        for (std::size_t slot = 0; slot < cluster.names.size(); ++slot)
          requests.push_back(ps.shape->requests[slot]);
        sets.push_back({{"requests", requests}, {"count", ps.count}, {"min", ps.min_count}});
      }
      out[key][g.name] = {{"sets", sets}, {"priority", g.priority}};
    }
  };
  gangs(cluster.snapshot.pending, "pending");
  std::vector<troupe::queueing::GangSpec> running;
  for (const auto& r : cluster.snapshot.running) running.push_back(r.spec);
  gangs(running, "running");
  for (const auto& p : cluster.problems)
    out["problems"].push_back(p.key + ": " + p.error.describe());
  return out;
}

}  // namespace

TEST_CASE("a pod version is read once however many cycles read it", "[controllers][facts]") {
  FactsCache<PodFacts> cache(readPodFacts);
  ObjectList pods;
  pods.push_back(pod("ml", "a-0").group("a").index(0).gpus(2));
  pods.push_back(pod("ml", "b-0").group("b").gpus(1).boundTo("n1", "3"));
  for (int cycle = 0; cycle < 3; ++cycle) {
    cache.read(pods);
    CHECK(cache[0].key == "ml/a-0");
    CHECK(cache[0].group == "ml/a");
    CHECK(cache[0].replica_index == 0);
    CHECK(cache[1].node == "n1");
    CHECK(cache[1].gpus == std::vector<int>{3});
  }
  CHECK(cache.parsed() == 2);

  // A new version (a new document from the cache) is read afresh; the old one is forgotten.
  pods.replace(0, pod("ml", "a-0").group("a").index(0).gpus(2).boundTo("n2", "0,1"));
  cache.read(pods);
  CHECK(cache[0].node == "n2");
  CHECK(cache[1].node == "n1");
  CHECK(cache.parsed() == 3);
  CHECK(cache.size() == 2);
}

TEST_CASE("kept facts follow objects added, changed and deleted anywhere in a listing",
          "[controllers][facts]") {
  // The listings are in key order, as the caches give them; each read checks every
  // object's facts against the object and counts what was parsed again.
  auto boundPod = [](const std::string& name, const std::string& node) {
    return shared(pod("ml", name).group(name).boundTo(node, "0"));
  };
  auto nameAt = [](const ObjectRef& object) {
    return (*object)["metadata"]["name"].get<std::string>();
  };
  std::vector<ObjectRef> list;
  for (int i = 0; i < 10; ++i) list.push_back(boundPod("p" + std::to_string(i), "n1"));
  FactsCache<PodFacts> cache(readPodFacts);
  auto read = [&] {
    cache.read(ObjectList(list));
    REQUIRE(cache.size() == list.size());
    for (std::size_t i = 0; i < list.size(); ++i) {
      CHECK(cache[i].key == "ml/" + nameAt(list[i]));
      CHECK(cache[i].node == (*list[i])["spec"]["nodeName"].get<std::string>());
    }
    return cache.parsed();
  };
  // What changes() reports after a read: "name:before node>after node", sorted.
  auto changes = [&] {
    std::vector<std::string> out;
    for (const auto& c : cache.changes())
      out.push_back(fmt::format("{}:{}>{}", (c.before ? c.before : c.after)->name,
                                c.before ? c.before->node : "", c.after ? c.after->node : ""));
    std::sort(out.begin(), out.end());
    return out;
  };
  CHECK(read() == 10);
  CHECK(changes().size() == 10);  // all new
  CHECK(read() == 10);            // nothing changed
  CHECK(changes().empty());
  list.erase(list.begin(), list.begin() + 3);            // a run deleted at the front
  list.erase(list.begin() + 2);                          // one in the middle (p5)
  list.insert(list.begin() + 1, boundPod("p3a", "n2"));  // one added
  list[4] = boundPod(nameAt(list[4]), "n3");             // one changed (p7)
  list.push_back(boundPod("p9a", "n4"));                 // one added at the end
  CHECK(read() == 13);
  CHECK(changes() == std::vector<std::string>{"p0:n1>", "p1:n1>", "p2:n1>", "p3a:>n2", "p5:n1>",
                                              "p7:>n3", "p7:n1>", "p9a:>n4"});
  list.pop_back();  // the last one deleted, after every object listed
  CHECK(read() == 13);
  CHECK(changes() == std::vector<std::string>{"p9a:n4>"});
  // Out of key order every object is still given its own facts; some are parsed again.
  std::reverse(list.begin(), list.end());
  const auto parsed = read();
  CHECK(parsed > 13);
  CHECK(parsed <= 13 + list.size());
}

TEST_CASE("equal pod shapes have equal keys, whatever order the pod names its resources in",
          "[controllers][facts]") {
  Json one = pod("ml", "x").gpus(4);
  Json other = pod("ml", "y");
  other["spec"]["containers"][0]["resources"] = {{"limits", {{"nvidia.com/gpu", "4"}}},
                                                 {"requests", {{"cpu", "1"}}}};
  CHECK(readPodFacts(one).shape->key == readPodFacts(other).shape->key);
  CHECK(readPodFacts(pod("ml", "z").gpus(8)).shape->key != readPodFacts(one).shape->key);
  Json tolerant = pod("ml", "t").gpus(4);
  tolerant["spec"]["tolerations"] = {{{"key", "gpu"}, {"operator", "Exists"}}};
  CHECK(readPodFacts(tolerant).shape->key != readPodFacts(one).shape->key);
}

TEST_CASE("a snapshot built from kept facts equals one read afresh, cycle after cycle",
          "[controllers][facts]") {
  // Extended resources get slots in the order objects name them; kept facts must give
  // the same slots as reading everything again.
  ApiObjects objects;
  objects.queues = {queue("team-a").guaranteedGpus(8)};
  objects.pod_groups = {podGroup("ml", "a").minMember(2), podGroup("ml", "b")};
  Json fpga_node = node("n2").gpus(8);
  fpga_node["status"]["allocatable"]["example.com/fpga"] = "2";
  objects.nodes = {node("n1").gpus(8), fpga_node};
  objects.pods = {
      withExtended(pod("ml", "b-0").group("b").gpus(1).boundTo("n2", "0"), "example.com/fpga", 1),
      pod("ml", "a-0").group("a").index(0).gpus(4),
      withExtended(pod("ml", "a-1").group("a").index(1).gpus(4), "example.com/nic", 1),
      pod("kube", "daemon").scheduler("default-scheduler").gpus(1).boundTo("n1")};

  SnapshotFacts kept;
  SnapshotOptions with_facts;
  with_facts.facts = &kept;
  for (int cycle = 0; cycle < 3; ++cycle) {
    auto fresh = buildClusterSnapshot(objects, {});
    auto from_facts = buildClusterSnapshot(objects, with_facts);
    CHECK(engineInputs(from_facts) == engineInputs(fresh));
  }
  CHECK(kept.pods.parsed() == 4);
  CHECK(kept.nodes.parsed() == 2);
  CHECK(kept.groups.parsed() == 2);
  auto cluster = buildClusterSnapshot(objects, with_facts);
  REQUIRE(cluster.snapshot.pending.size() == 1);
  CHECK(cluster.snapshot.pending[0].pod_sets.size() == 2);  // the NIC pod is its own shape
  CHECK(cluster.snapshot.nodes[0].allocatable[kGpu] == 7);  // the daemon holds one
  CHECK(cluster.snapshot.nodes[0].allocatable[kCpu] == 63000);

  // One pod changes: only it is read again, and the snapshot follows it.
  objects.pods.replace(1, pod("ml", "a-0").group("a").index(0).gpus(4).boundTo("n1", "0,1,2,3"));
  auto after = buildClusterSnapshot(objects, with_facts);
  CHECK(kept.pods.parsed() == 5);
  CHECK(engineInputs(after) == engineInputs(buildClusterSnapshot(objects, {})));
  CHECK(after.snapshot.running.size() == 2);
}

TEST_CASE("a damaged pod or node in kept facts is still named as a problem every cycle",
          "[controllers][facts]") {
  ApiObjects objects;
  objects.queues = {queue("team-a").guaranteedGpus(8)};
  objects.pod_groups = {podGroup("ml", "a")};
  Json bad_node = node("n2");
  bad_node["metadata"]["annotations"]["troupe.dev/gpu-topology"] = "not a topology";
  objects.nodes = {node("n1"), bad_node};
  Json bad_pod = pod("ml", "a-0").group("a");
  bad_pod["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = "lots";
  objects.pods = {bad_pod};
  SnapshotFacts kept;
  SnapshotOptions options;
  options.facts = &kept;
  for (int cycle = 0; cycle < 2; ++cycle) {
    auto cluster = buildClusterSnapshot(objects, options);
    REQUIRE(cluster.problems.size() == 2);
    CHECK(cluster.problems[0].kind == "Node");
    CHECK(cluster.problems[0].key == "n2");
    CHECK(cluster.problems[1].kind == "PodGroup");
    CHECK(cluster.problems[1].error.field_path.find("pods[a-0].spec.containers[0]") == 0);
    CHECK(cluster.snapshot.pending.empty());
  }
}

TEST_CASE("a recycled snapshot's unchanged nodes are moved into the next, changed ones read",
          "[controllers][facts]") {
  auto described = [](std::string name, std::string rack) {
    Json n = node(std::move(name)).gpus(8).rack(std::move(rack));
    n["metadata"]["annotations"]["troupe.dev/gpu-topology"] =
        R"({"nvlinkIslands":[[0,1,2,3],[4,5,6,7]],"numa":[[0,1,2,3],[4,5,6,7]]})";
    n["spec"]["taints"] = {{{"key", "gpu"}, {"value", "a100"}, {"effect", "NoSchedule"}}};
    return n;
  };
  ApiObjects objects;
  objects.queues = {queue("team-a").guaranteedGpus(8)};
  objects.nodes = {described("n1", "r1"), described("n2", "r1"), described("n3", "r2")};
  objects.pods = {pod("kube", "daemon").scheduler("default-scheduler").gpus(2).boundTo("n2")};
  SnapshotFacts kept;
  SnapshotOptions options;
  options.facts = &kept;
  auto same_nodes = [](const ClusterSnapshot& a, const ClusterSnapshot& b) {
    REQUIRE(a.snapshot.nodes.size() == b.snapshot.nodes.size());
    for (std::size_t i = 0; i < a.snapshot.nodes.size(); ++i) {
      INFO("node " << a.snapshot.nodes[i].name);
      CHECK(a.snapshot.nodes[i] == b.snapshot.nodes[i]);
    }
  };

  auto first = buildClusterSnapshot(objects, options);
  REQUIRE(first.snapshot.nodes.size() == 3);
  REQUIRE(first.node_facts.size() == 3);
  CHECK(first.snapshot.nodes[1].allocatable[kGpu] == 6);
  const auto* n1_labels = first.snapshot.nodes[0].labels.data();
  const auto* n3_islands = first.snapshot.nodes[2].nvlink_islands.data();
  recycle(std::move(first), kept);

  // Nothing changed but the daemon, gone: the specs are the same objects, moved, and what
  // the daemon held is free again on the recycled n2.
  objects.pods = {};
  auto second = buildClusterSnapshot(objects, options);
  same_nodes(second, buildClusterSnapshot(objects, {}));
  CHECK(second.snapshot.nodes[0].labels.data() == n1_labels);
  CHECK(second.snapshot.nodes[2].nvlink_islands.data() == n3_islands);
  CHECK(second.snapshot.nodes[1].allocatable[kGpu] == 8);
  CHECK_FALSE(kept.spare.has_value());
  recycle(std::move(second), kept);

  // n1 removed, n0 added before every other node, n2 relabelled: each is read from its
  // object, and n3 is still moved.
  ObjectList nodes;
  nodes.push_back(described("n0", "r0"));
  nodes.push_back(objects.nodes.ref(1));
  nodes.push_back(objects.nodes.ref(2));
  nodes.replace(1, described("n2", "r9"));
  objects.nodes = nodes;
  auto third = buildClusterSnapshot(objects, options);
  same_nodes(third, buildClusterSnapshot(objects, {}));
  REQUIRE(third.snapshot.nodes.size() == 3);
  CHECK(third.snapshot.nodes[0].name == "n0");
  CHECK(third.snapshot.nodes[1].labels == troupe::queueing::Labels{{"troupe.dev/rack", "r9"}});
  CHECK(third.snapshot.nodes[2].nvlink_islands.data() == n3_islands);

  // Without a recycle the next build copies every node, and is still the same snapshot.
  auto fourth = buildClusterSnapshot(objects, options);
  same_nodes(fourth, third);
  CHECK(fourth.snapshot.nodes[2].nvlink_islands.data() != n3_islands);
}
