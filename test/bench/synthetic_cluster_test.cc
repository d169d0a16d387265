#include "bench/engine/synthetic_cluster.h"

#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>

namespace troupe::bench {
namespace {

TEST_CASE("a synthetic cluster has the asked shape and never overcommits a GPU",
          "[bench][synthetic]") {
  SyntheticShape shape;
  shape.nodes = 300;
  shape.queues = 27;
  shape.pending = 2000;
  auto snap = makeSyntheticSnapshot(shape);
  CHECK(snap.nodes.size() == 300);
  CHECK(snap.pending.size() == 2000);
  // 27 leaves: cbrt = 3 departments and 9 teams above them.
  std::map<std::string, std::string> parent;
  for (const auto& q : snap.queues) parent[q.name] = q.parent;
  CHECK(snap.queues.size() == 3 + 9 + 27);
  for (const auto& q : snap.queues) {
    int depth = 0;
    for (std::string at = q.name; !parent[at].empty(); at = parent[at]) ++depth;
    CHECK(depth <= 2);
  }
  // Racks of 32 nodes, blocks of 8 racks: node 299 is in rack 9, block 1.
  CHECK(snap.nodes[299].labels[1].second == "rack-0009");
  CHECK(snap.nodes[299].labels[0].second == "block-001");
  std::map<std::string, std::set<int>> held;
  for (const auto& gang : snap.running) {
    for (const auto& pod : gang.pods) {
      for (int g : pod.gpus) CHECK(held[pod.node].insert(g).second);
    }
  }
  for (const auto& gang : snap.pending) {
    REQUIRE(gang.pod_sets.size() == 1);
    CHECK(gang.pod_sets[0].count >= 1);
    CHECK(gang.pod_sets[0].count <= 64);
    CHECK(gang.submit_time < snap.now);
  }
}

TEST_CASE("the same seed gives the same cluster and another seed a different one",
          "[bench][synthetic]") {
  SyntheticShape shape;
  shape.nodes = 100;
  shape.queues = 10;
  shape.pending = 500;
  auto a = makeSyntheticSnapshot(shape);
  auto b = makeSyntheticSnapshot(shape);
  shape.seed += 1;
  auto c = makeSyntheticSnapshot(shape);
  auto fingerprint = [](const queueing::Snapshot& s) {
    std::string out;
    for (const auto& g : s.pending) {
      out += g.name + g.queue + std::to_string(g.pod_sets[0].count) +
             std::to_string(g.submit_time) + ";";
    }
    for (const auto& g : s.running) out += g.spec.name + g.pods.front().node + ";";
    return out;
  };
  CHECK(fingerprint(a) == fingerprint(b));
  CHECK(fingerprint(a) != fingerprint(c));
}

TEST_CASE("a two-type synthetic cluster keeps each gang and each rack on one type",
          "[bench][synthetic][gpu-types]") {
  SyntheticShape shape;
  shape.nodes = 128;  // racks 0 and 2 of type a, 1 and 3 of type b
  shape.queues = 8;
  shape.pending = 600;
  shape.gpu_types = 2;
  const auto snap = makeSyntheticSnapshot(shape);
  std::map<std::string, std::string> type_of;
  for (const auto& n : snap.nodes) {
    REQUIRE(n.labels.size() == 3);
    type_of[n.name] = n.labels[2].second;
    const std::size_t slot = n.labels[2].second == "a" ? 3 : 4;
    CHECK(n.allocatable[slot] == 8);
  }
  CHECK(type_of["node-00000"] == "a");
  CHECK(type_of["node-00032"] == "b");
  // Guarantees: half of each queue's GPUs of each type.
  for (const auto& q : snap.queues) CHECK(q.guaranteed[3] + q.guaranteed[4] == q.guaranteed[0]);
  for (const auto& g : snap.running) {
    const std::string& type = g.spec.pod_sets[0].shape->node_selector.at(0).second;
    for (const auto& pod : g.pods) CHECK(type_of[pod.node] == type);
  }
  // A third accept both types (600 / 3 = 200, give or take the draw).
  int both = 0;
  for (const auto& g : snap.pending) {
    REQUIRE(g.pod_sets[0].shape->node_selector.size() == 1);
    if (g.alternatives.empty()) continue;
    ++both;
    CHECK(g.variant != g.alternatives[0].name);
    CHECK(g.alternatives[0].pod_sets.at(0).count == g.pod_sets[0].count);
  }
  CHECK(both > 150);
  CHECK(both < 250);
}

}  // namespace
}  // namespace troupe::bench
