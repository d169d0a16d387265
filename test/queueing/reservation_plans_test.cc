// Keeping a reservation's plan while planning it again could not move it
// (Policy::keep_reservation_plans, queueing/reservation_plans.h) is an optimisation:
// planning every reservation again after each release must decide and explain the same.
// Random busy clusters where big gangs starve and hold reservations while small jobs end
// and arrive around them, and nodes are cordoned now and then.
//   TROUPE_TEST_SEED=<n>   replays from seed n (the failing seed is printed)
//   TROUPE_TEST_SCALE=<k>  runs k times as many clusters
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "test/queueing/builders.h"
#include "test/queueing/scenario.h"
#include "test/support/env_or.h"

namespace troupe::queueing {
namespace {

using namespace testing;

struct Job {
  GangSpec spec;
  int arrival_cycle = 0;
  int cycles = 1;  // how long it runs once admitted
};

struct PlanWorld {
  std::vector<NodeSpec> nodes;
  std::vector<QueueSpec> queues;
  std::vector<Job> jobs;
  int cordon_cycle = -1;  // when node 0 is cordoned, -1: never
  int max_reservations = 8;
  int max_reservations_per_queue = 1;
};

PlanWorld randomPlanWorld(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](int lo, int hi) { return lo + static_cast<int>(rng() % (hi - lo + 1)); };
  PlanWorld w;
  const int nodes = pick(6, 24);
  for (int i = 0; i < nodes; ++i)
    w.nodes.push_back(node("n" + std::to_string(i))
                          .gpus(pick(0, 3) == 0 ? 4 : 8)
                          .rack("r" + std::to_string(i / 4))
                          .block("b" + std::to_string(i / 8)));
  const int leaves = pick(2, 4);
  for (int i = 0; i < leaves; ++i)
    w.queues.push_back(queue("q" + std::to_string(i))
                           .guaranteedGpus(pick(0, 24))
                           .weight(pick(1, 3))
                           .maxWait(pick(5, 30)));
  const int jobs = pick(20, 60);
  const int gpu_choices[] = {1, 2, 4, 8};
  for (int i = 0; i < jobs; ++i) {
    const bool big = pick(0, 3) == 0;
    GangBuilder g = gang("j" + std::to_string(i))
                        .queue("q" + std::to_string(pick(0, leaves - 1)))
                        .gpus(big ? 8 : gpu_choices[pick(0, 3)])
                        .submittedAt(0);
    const int pods = big ? pick(2, nodes / 2 + 1) : pick(1, 2);
    if (!big && pick(0, 5) == 0)
      g.elastic(1, pods + 1);
    else
      g.pods(pods);
    if (pick(0, 5) == 0) g.requireTopology("troupe.dev/rack");
    if (pick(0, 5) == 0) g.preferTopology("troupe.dev/block");
    if (pick(0, 4) == 0) g.runtimeEstimate(pick(5, 60));
    if (pick(0, 6) == 0) g.notPreemptible();
    w.jobs.push_back(Job{g, pick(0, 40), pick(1, 12)});
  }
  if (pick(0, 2) == 0) w.cordon_cycle = pick(5, 30);
  w.max_reservations = pick(1, 8);
  w.max_reservations_per_queue = pick(1, 2);
  return w;
}

// Each cycle's decisions and the explanation of every gang it named, in order.
std::vector<std::string> run(const PlanWorld& w, bool keep_plans) {
  Policy policy;
  policy.keep_reservation_plans = keep_plans;
  policy.max_reservations = w.max_reservations;
  policy.max_reservations_per_queue = w.max_reservations_per_queue;
  Engine e = engineWith(w.nodes, w.queues, policy);
  std::vector<std::string> log;
  std::map<std::string, int> ends;  // running job: the cycle at which it ends
  Seconds now = 0;
  for (int cycle = 0; cycle < 80; ++cycle, now += 5) {
    for (const Job& j : w.jobs) {
      if (j.arrival_cycle != cycle) continue;
      GangSpec g = j.spec;
      g.submit_time = now;
      REQUIRE(e.submit(std::move(g)).ok());
    }
    for (auto it = ends.begin(); it != ends.end();) {
      if (it->second > cycle || !e.isRunning(it->first)) {
        ++it;
        continue;
      }
      REQUIRE(e.remove(it->first).ok());
      it = ends.erase(it);
    }
    if (cycle == w.cordon_cycle) {
      NodeSpec cordoned = w.nodes[0];
      cordoned.unschedulable = true;
      REQUIRE(e.upsertNode(cordoned).ok());
    }
    const Decisions d = e.schedule(now);
    std::ostringstream s;
    for (const auto& p : d.preemptions) s << "P " << p.gang << " by " << p.preemptor << "\n";
    for (const auto& r : d.resizes)
      s << "R " << r.gang << " +" << r.added.size() << " -" << r.removed.size() << "\n";
    for (const auto& a : d.admissions) {
      s << "A " << a.gang;
      for (const auto& p : a.pods) s << " " << p.node << ":" << p.gpus.size();
      s << "\n";
      for (const Job& j : w.jobs)
        if (j.spec.name == a.gang) ends[a.gang] = cycle + j.cycles;
    }
    for (const auto& gang : d.explained)
      s << "W " << gang << " " << describe(e.explanation(gang).value()) << "\n";
    log.push_back(s.str());
  }
  return log;
}

TEST_CASE("kept reservation plans decide and explain as planning every reservation again",
          "[queueing][backfill][property]") {
  const std::uint64_t base = troupe::testing::envOr("TROUPE_TEST_SEED", 20261128);
  const std::uint64_t count = 200 * troupe::testing::envOr("TROUPE_TEST_SCALE", 1);
  std::printf("reservation plans: seeds %llu..%llu (TROUPE_TEST_SEED=<seed> replays)\n",
              static_cast<unsigned long long>(base),
              static_cast<unsigned long long>(base + count - 1));
  std::size_t reserved = 0;
  for (std::uint64_t seed = base; seed < base + count; ++seed) {
    const PlanWorld w = randomPlanWorld(seed);
    const auto kept = run(w, true);
    const auto planned = run(w, false);
    REQUIRE(kept.size() == planned.size());
    for (std::size_t c = 0; c < kept.size(); ++c) {
      INFO("seed " << seed << ", cycle " << c << "\nkept:\n"
                   << kept[c] << "planned again:\n"
                   << planned[c]);
      REQUIRE(kept[c] == planned[c]);
      if (kept[c].find("Reserved:") != std::string::npos) ++reserved;
    }
  }
  std::printf("reservation plans: %zu cycles explained a gang as Reserved\n", reserved);
  // The worlds must hold reservations, or the property says nothing.
  CHECK(reserved > count);
}

}  // namespace
}  // namespace troupe::queueing
