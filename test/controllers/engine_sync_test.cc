#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <random>

#include "controllers/engine_loader.h"
#include "controllers/engine_sync.h"
#include "test/queueing/builders.h"

using namespace troupe::controllers;
using namespace troupe::queueing;
namespace qt = troupe::queueing::testing;

namespace {

// The cluster as the API would show it to the scheduler loop, cycle after cycle: every
// gang pending or running, every node and queue, turned into a snapshot in name order.
struct World {
  std::map<std::string, NodeSpec> nodes;
  std::map<std::string, QueueSpec> queues;
  std::map<std::string, GangSpec> pending;
  std::map<std::string, RunningGang> running;

  ClusterSnapshot snapshot() const {
    ClusterSnapshot out;
    for (const auto& [name, n] : nodes) out.snapshot.nodes.push_back(n);
    for (const auto& [name, q] : queues) out.snapshot.queues.push_back(q);
    for (const auto& [name, g] : pending) out.snapshot.pending.push_back(g);
    for (const auto& [name, r] : running) out.snapshot.running.push_back(r);
    return out;
  }

  // The snapshot as buildClusterSnapshot gives it from a recycled one (numbered
  // `recycled_from`): each gang equal to its entry in `before` marked as taken unchanged.
  ClusterSnapshot recycledSnapshot(const World& before, std::uint64_t reads,
                                   std::uint64_t recycled_from) const {
    ClusterSnapshot out = snapshot();
    out.pod_reads = reads;
    out.recycled_from = recycled_from;
    for (const auto& g : out.snapshot.pending) {
      auto it = before.pending.find(g.name);
      out.pending_recycled.push_back(it != before.pending.end() && it->second == g);
    }
    for (const auto& r : out.snapshot.running) {
      auto it = before.running.find(r.spec.name);
      out.running_recycled.push_back(it != before.running.end() && it->second == r);
    }
    return out;
  }
};

std::vector<std::string> describe(const std::vector<Problem>& problems) {
  std::vector<std::string> out;
  for (const auto& p : problems) out.push_back(p.kind + " " + p.key + ": " + p.error.describe());
  std::sort(out.begin(), out.end());
  return out;
}

// Everything a fresh engine loaded from the same snapshot holds, the synced one holds too.
void checkSameAsFresh(const World& world, const ClusterSnapshot& cluster, EngineSync& sync,
                      const std::vector<Problem>& refused) {
  auto fresh = loadEngine(cluster, Policy{});
  CHECK(describe(refused) == describe(fresh.problems));
  const Engine& kept = sync.engine();
  CHECK(kept.pendingCount() == fresh.engine.pendingCount());
  CHECK(kept.runningCount() == fresh.engine.runningCount());
  for (const auto& [name, g] : world.pending) {
    CHECK(kept.isPending(name) == fresh.engine.isPending(name));
    CHECK(kept.isRunning(name) == fresh.engine.isRunning(name));
  }
  for (const auto& [name, r] : world.running) {
    INFO("running gang " << name);
    CHECK(kept.isRunning(name) == fresh.engine.isRunning(name));
    CHECK(kept.running(name) == fresh.engine.running(name));
  }
  for (const auto& [name, q] : world.queues) {
    INFO("queue " << name);
    auto a = kept.queueStatus(name);
    auto b = fresh.engine.queueStatus(name);
    REQUIRE(a.has_value() == b.has_value());
    if (a) {
      CHECK(a->allocated == b->allocated);
      CHECK(a->demand == b->demand);
    }
  }
  for (const auto& n : cluster.snapshot.nodes) CHECK(kept.holds(n));
  CHECK(kept.nodeCount() == cluster.snapshot.nodes.size());
}

}  // namespace

TEST_CASE("a synced engine holds what a freshly loaded one holds, cycle after cycle",
          "[controllers][engine-sync]") {
  // Random clusters: the runtime carries out most decisions but not all (a binding or an
  // eviction that has not happened yet), gangs finish, arrive and are deleted, nodes fail
  // and come back, queues' usage moves, a queue is added now and then (a reload), and
  // some gangs are broken (refused every cycle).
  std::size_t unasked = 0;
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    DYNAMIC_SECTION("seed " << seed) {
      std::mt19937 rng(seed);
      auto chance = [&](int percent) { return static_cast<int>(rng() % 100) < percent; };
      World world;
      for (int i = 0; i < 8; ++i) {
        NodeSpec n = qt::node(fmt::format("n{}", i)).gpus(8).rack(i < 4 ? "r1" : "r2");
        world.nodes[n.name] = n;
      }
      world.queues["a"] = qt::queue("a").guaranteedGpus(24);
      world.queues["b"] = qt::queue("b").guaranteedGpus(24);
      EngineSync sync{Policy{}};
      int next_gang = 0;
      Seconds t = 1000;
      World before;  // as the last snapshot showed it
      for (int cycle = 0; cycle < 60; ++cycle) {
        // Arrivals, some broken.
        for (int k = static_cast<int>(rng() % 3); k > 0; --k) {
          const auto name = fmt::format("ml/g{}", next_gang++);
          GangSpec g = qt::gang(name)
                           .queue(chance(50) ? "a" : "b")
                           .pods(1 + static_cast<std::int32_t>(rng() % 3))
                           .gpus(1 + static_cast<std::int64_t>(rng() % 8))
                           .priority(static_cast<std::int32_t>(rng() % 3))
                           .submittedAt(t);
          if (chance(5)) g.queue = "missing";
          if (chance(30)) g.pod_sets[0].min_count = 1;  // elastic: grown and shrunk
          if (chance(5)) g.pod_sets[0].min_count = 0;   // refused
          world.pending[name] = g;
        }
        // Departures.
        if (!world.running.empty() && chance(40)) {
          auto it = world.running.begin();
          std::advance(it, static_cast<long>(rng() % world.running.size()));
          world.running.erase(it);
        }
        if (!world.pending.empty() && chance(10)) world.pending.erase(world.pending.begin());
        // A node fails or comes back when nothing runs on it.
        if (chance(15)) {
          auto& n = world.nodes[fmt::format("n{}", rng() % 8)];
          bool busy = false;
          for (const auto& [name, r] : world.running)
            for (const auto& p : r.pods) busy = busy || p.node == n.name;
          if (!busy) n.ready = !n.ready;
        }
        if (chance(30)) world.queues["a"].decayed_usage[kGpu] += 3;
        if (chance(3)) {
          const auto name = fmt::format("q{}", cycle);
          world.queues[name] = qt::queue(name).guaranteedGpus(0);
        }

        // Gangs taken unchanged from the snapshot before, as the builder marks them; now
        // and then from one the engine was not synced to, which must change nothing.
        const auto reads = static_cast<std::uint64_t>(cycle) + 2;
        // (Every gang marked, from a snapshot two back: the marks must go unread.)
        const auto cluster = chance(10) ? world.recycledSnapshot(world, reads, reads - 2)
                                        : world.recycledSnapshot(before, reads, reads - 1);
        const auto refused = sync.sync(cluster);
        checkSameAsFresh(world, cluster, sync, refused);
        unasked += sync.lastSync().gangs_unasked;
        before = world;

        const auto decisions = sync.engine().schedule(t);
        for (const auto& p : decisions.preemptions) {
          auto it = world.running.find(p.gang);
          if (it == world.running.end() || chance(20)) continue;  // not evicted yet
          world.pending[p.gang] = it->second.spec;
          world.running.erase(it);
        }
        for (const auto& a : decisions.admissions) {
          auto it = world.pending.find(a.gang);
          if (it == world.pending.end() || chance(20)) continue;  // not bound yet
          bool free = true;  // its GPUs, unless an eviction it waits for did not happen
          for (const auto& [name, r] : world.running)
            for (const auto& held : r.pods)
              for (const auto& p : a.pods)
                if (held.node == p.node)
                  for (int gpu : p.gpus)
                    free = free &&
                           std::find(held.gpus.begin(), held.gpus.end(), gpu) == held.gpus.end();
          if (!free) continue;
          world.running[a.gang] = RunningGang{it->second, t, a.pods};
          world.pending.erase(it);
        }
        t += 1 + static_cast<Seconds>(rng() % 30);
      }
    }
  }
  CHECK(unasked > 100);  // most gangs, most cycles, were not compared
}

TEST_CASE("a synced engine sends only what changed", "[controllers][engine-sync]") {
  World world;
  for (int i = 0; i < 4; ++i) {
    NodeSpec n = qt::node(fmt::format("n{}", i)).gpus(8);
    world.nodes[n.name] = n;
  }
  world.queues["a"] = qt::queue("a").guaranteedGpus(32);
  for (int i = 0; i < 6; ++i) {
    GangSpec g = qt::gang(fmt::format("ml/g{}", i)).queue("a").gpus(4).submittedAt(10);
    world.pending[g.name] = g;
  }
  EngineSync sync{Policy{}};
  (void)sync.sync(world.snapshot());
  CHECK(sync.lastSync().reloaded);
  CHECK(sync.lastSync().gangs_added == 6);

  // The engine admits all six; the runtime binds them: nothing differs any more.
  const auto decisions = sync.engine().schedule(100);
  REQUIRE(decisions.admissions.size() == 6);
  for (const auto& a : decisions.admissions) {
    world.running[a.gang] = RunningGang{world.pending.at(a.gang), 100, a.pods};
    world.pending.erase(a.gang);
  }
  (void)sync.sync(world.snapshot());
  CHECK_FALSE(sync.lastSync().reloaded);
  CHECK(sync.lastSync().gangs_removed == 0);
  CHECK(sync.lastSync().gangs_added == 0);
  CHECK(sync.lastSync().nodes == 0);

  // One finishes, one arrives, one node is cordoned: three deltas.
  world.running.erase("ml/g0");
  world.pending["ml/g9"] = qt::gang("ml/g9").queue("a").gpus(2).submittedAt(120);
  world.nodes["n3"].unschedulable = true;
  (void)sync.sync(world.snapshot());
  CHECK_FALSE(sync.lastSync().reloaded);
  CHECK(sync.lastSync().gangs_removed == 1);
  CHECK(sync.lastSync().gangs_added == 1);
  CHECK(sync.lastSync().nodes == 1);
  CHECK(sync.engine().isPending("ml/g9"));
  CHECK_FALSE(sync.engine().isRunning("ml/g0"));

  // A running gang whose pods have not reported their start: the snapshot says it
  // starts `now`, a different moment every cycle; the engine keeps the start it holds.
  for (Seconds now = 130; now < 133; ++now) {
    auto cluster = world.snapshot();
    for (std::size_t i = 0; i < cluster.snapshot.running.size(); ++i) {
      const bool is_g1 = cluster.snapshot.running[i].spec.name == "ml/g1";
      if (is_g1) cluster.snapshot.running[i].start_time = now;
      cluster.running_started.push_back(!is_g1);
    }
    (void)sync.sync(cluster);
    CHECK(sync.lastSync().gangs_added == 0);
    CHECK(sync.engine().running("ml/g1")->start_time == 100);
  }

  // A new queue changes the tree: the engine is loaded afresh.
  world.queues["b"] = qt::queue("b");
  (void)sync.sync(world.snapshot());
  CHECK(sync.lastSync().reloaded);
}

TEST_CASE("capacity a node gains while a gang waits is offered to it in the next cycle",
          "[controllers][engine-sync]") {
  // node-0 shows 2 GPUs while a pod of another scheduler holds 6 of them; a 2 x 8 GPU gang
  // waits for both nodes whole.
  World world;
  world.nodes["n0"] = qt::node("n0").gpus(2);
  world.nodes["n1"] = qt::node("n1").gpus(8);
  world.queues["a"] = qt::queue("a").guaranteedGpus(16);
  world.pending["ml/wide"] = qt::gang("ml/wide").queue("a").pods(2).gpus(8).submittedAt(10);
  world.pending["ml/narrow"] = qt::gang("ml/narrow").queue("a").gpus(2).submittedAt(20);
  EngineSync sync{Policy{}};
  Seconds t = 100;
  (void)sync.sync(world.snapshot());
  auto first = sync.engine().schedule(t);
  REQUIRE(first.admissions.size() == 1);
  CHECK(first.admissions[0].gang == "ml/narrow");
  world.running["ml/narrow"] =
      RunningGang{world.pending.at("ml/narrow"), t, first.admissions[0].pods};
  world.pending.erase("ml/narrow");
  for (int i = 0; i < 3; ++i) {
    (void)sync.sync(world.snapshot());
    CHECK(sync.engine().schedule(++t).admissions.empty());
  }
  // The narrow job goes, then the other pod: node-0 has all 8 GPUs again.
  world.running.erase("ml/narrow");
  for (int i = 0; i < 3; ++i) {
    (void)sync.sync(world.snapshot());
    CHECK(sync.engine().schedule(++t).admissions.empty());
  }
  world.nodes["n0"] = qt::node("n0").gpus(8);
  (void)sync.sync(world.snapshot());
  auto after = sync.engine().schedule(++t);
  REQUIRE(after.admissions.size() == 1);
  CHECK(after.admissions[0].gang == "ml/wide");
}

TEST_CASE("the pods of a running gang the engine refuses still hold their GPUs",
          "[controllers][engine-sync]") {
  // 'late' lists GPUs 0-3 of n0, which 'early' holds already (two pods bound on the same
  // GPUs): the engine refuses it. Its pods hold GPUs 0-3 and 4 GPUs' worth of n0 all the
  // same, so 'next' (8 GPUs) does not fit on n0, in a fresh engine or a synced one.
  World world;
  world.nodes["n0"] = qt::node("n0").gpus(8);
  world.queues["a"] = qt::queue("a");
  world.running["ml/early"] =
      RunningGang{qt::gang("ml/early").queue("a").gpus(4), 0, {{0, "n0", {0, 1, 2, 3}}}};
  world.running["ml/late"] =
      RunningGang{qt::gang("ml/late").queue("a").gpus(4), 0, {{0, "n0", {0, 1, 2, 3}}}};
  world.pending["ml/next"] = qt::gang("ml/next").queue("a").gpus(4).submittedAt(1);
  world.pending["ml/wide"] = qt::gang("ml/wide").queue("a").gpus(8).submittedAt(2);
  SECTION("loaded afresh") {
    auto loaded = loadEngine(world.snapshot(), Policy{});
    CHECK(describe(loaded.problems) ==
          std::vector<std::string>{"PodGroup ml/late: running[ml/late].pods[0].gpus: GPU "
                                   "already held by another pod"});
    const auto d = loaded.engine.schedule(10);
    // GPUs 4-7 are free, but no GPU's worth of capacity is: early and late hold all 8.
    CHECK(d.admissions.empty());
  }
  SECTION("synced cycle after cycle") {
    EngineSync sync{Policy{}};
    for (Seconds t = 10; t < 13; ++t) {
      const auto problems = sync.sync(world.snapshot());
      CHECK(problems.size() == 1);
      CHECK(sync.engine().schedule(t).admissions.empty());
    }
    // late's pod is gone: its capacity comes back.
    world.running.erase("ml/late");
    (void)sync.sync(world.snapshot());
    const auto d = sync.engine().schedule(20);
    REQUIRE(d.admissions.size() == 1);
    CHECK(d.admissions[0].gang == "ml/next");
    CHECK(d.admissions[0].pods[0].gpus == std::vector<int>{4, 5, 6, 7});
  }
}
