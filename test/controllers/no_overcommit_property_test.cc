// No GPU given twice: random reclaims, preemptions, elastic shrinks, node failures and
// operator restarts, with random termination times, against the scheduler loop's own
// planning (snapshot, engine, action plan, pods in the way), checked after every event.
//
// The level: the engine and the controllers' planning, carried out the way the operator
// carries them out (delete the victims, bind a gang only once the pods in its way are gone
// from the API, whole or not at all), against a model of the API server, the kubelets and
// the gangs' controller (test/controllers/cluster_model.h). Thousands of steps a second;
// the end-to-end test (test/operator) runs the same story through real processes.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>
#include <sstream>

#include "controllers/action_plan.h"
#include "controllers/bound_allocation.h"
#include "controllers/cluster_snapshot.h"
#include "controllers/engine_sync.h"
#include "test/controllers/cluster_model.h"
#include "test/support/env_or.h"

using namespace troupe::controllers;
using namespace troupe::controllers::testing;
using troupe::queueing::Decisions;
using troupe::queueing::Policy;

namespace {

// The actions of a cycle, one line each, to compare two engines.
std::string actions(const Decisions& d) {
  std::ostringstream s;
  for (const auto& p : d.preemptions) s << "P " << p.gang << " by " << p.preemptor << "\n";
  for (const auto& r : d.resizes) {
    s << "R " << r.gang << " +" << r.added.size() << " -" << r.removed.size() << "\n";
    for (const auto& p : r.removed)
      s << "  - " << p.node << " " << fmt::format("{}", fmt::join(p.gpus, ",")) << "\n";
  }
  for (const auto& a : d.admissions) {
    s << "A " << a.gang;
    for (const auto& p : a.pods)
      s << " " << p.node << ":" << fmt::format("{}", fmt::join(p.gpus, ","));
    s << "\n";
  }
  return s.str();
}

std::string explanations(const troupe::queueing::Engine& e, const Decisions& d) {
  std::ostringstream s;
  for (const auto& g : d.explained) s << g << ": " << describe(*e.explanation(g)) << "\n";
  return s.str();
}

struct Totals {
  std::size_t cycles = 0, preemptions = 0, shrinks = 0, admissions = 0, deferred = 0,
              waited_for_terminating = 0, restarts = 0, node_failures = 0, events = 0;
};

// The operator's scheduling cycle, carried out against the model.
class SchedulerLoop {
 public:
  // `shadow`: a second engine with another policy, synced to the same snapshots, that must
  // decide the same (and explain the same unless `actions_only`).
  SchedulerLoop(std::optional<Policy> shadow, bool actions_only)
      : shadow_policy_(std::move(shadow)), actions_only_(actions_only) {
    restart();
  }

  // A new leadership: nothing kept from the last one.
  void restart() {
    facts_ = SnapshotFacts{};
    engine_.emplace(Policy{});
    if (shadow_policy_) shadow_.emplace(*shadow_policy_);
  }

  // One cycle. `crash`: the operator dies right after deleting the victims, before any
  // binding. Returns what went wrong, if anything.
  std::vector<std::string> cycle(ClusterModel& api, bool crash, Totals& totals) {
    std::vector<std::string> wrong;
    ++totals.cycles;
    const auto now = api.now();
    SnapshotOptions options;
    options.now = now;
    options.facts = &facts_;
    auto cluster = buildClusterSnapshot(api.objects(), options);
    for (const auto& p : cluster.problems)
      wrong.push_back(
          fmt::format("snapshot problem: {} {}: {}", p.kind, p.key, p.error.describe()));

    // A queue holds what its pods hold, terminating ones included, until they are gone:
    // the snapshot's count and the engine's agree with the API.
    const auto truth = api.heldByQueue();
    const auto counted = boundAllocation(cluster, {});
    (void)engine_->sync(cluster);
    for (const auto& q : cluster.snapshot.queues) {
      std::map<std::string, std::int64_t> seen, engine_seen;
      const auto& vector = counted.at(q.name);
      const auto status = engine_->engine().queueStatus(q.name);
      for (std::size_t slot = 0; slot < cluster.names.size(); ++slot) {
        if (vector[slot] != 0) seen[cluster.names.name(slot)] = vector[slot];
        if (status && status->allocated[slot] != 0)
          engine_seen[cluster.names.name(slot)] = status->allocated[slot];
      }
      auto want = truth.contains(q.name) ? truth.at(q.name) : std::map<std::string, std::int64_t>{};
      // The operator counts GPUs in thousandths too (controllers/gpu_milli.h).
      if (auto gpus = want.find("nvidia.com/gpu"); gpus != want.end() && gpus->second > 0)
        want["troupe.dev/gpu-milli"] = gpus->second * 1000;
      if (seen != want || engine_seen != want)
        wrong.push_back(fmt::format("queue {}: its pods hold {}; counted {}; the engine holds {}",
                                    q.name, fmt::join(want, " "), fmt::join(seen, " "),
                                    fmt::join(engine_seen, " ")));
    }

    Decisions d = engine_->engine().schedule(now);
    if (shadow_) {
      (void)shadow_->sync(cluster);
      const Decisions other = shadow_->engine().schedule(now);
      if (actions(other) != actions(d)) {
        wrong.push_back("a policy variant decided differently:\n" + actions(other) +
                        "instead of\n" + actions(d));
      } else if (!actions_only_ &&
                 (other.explained != d.explained ||
                  explanations(shadow_->engine(), other) != explanations(engine_->engine(), d))) {
        wrong.push_back("a policy variant explained differently:\n" +
                        explanations(shadow_->engine(), other) + "instead of\n" +
                        explanations(engine_->engine(), d));
      }
    }
    for (const auto& g : d.explained) {
      auto e = engine_->engine().explanation(g);
      if (e && e->detail.find("to terminate") != std::string::npos) ++totals.waited_for_terminating;
    }
    // Capacity already being freed is never taken again: no victim is a gang whose pods
    // are all terminating, no shrink takes a terminating pod.
    for (const auto& p : d.preemptions)
      if (api.allTerminating(p.gang))
        wrong.push_back(fmt::format("preempted {}, whose pods all terminate already", p.gang));
    for (const auto& r : d.resizes)
      for (const auto& removed : r.removed)
        if (removed.terminating)
          wrong.push_back(fmt::format("shrank {} by a pod that terminates already", r.gang));
    totals.preemptions += d.preemptions.size();
    for (const auto& r : d.resizes) totals.shrinks += !r.removed.empty();

    const auto plan = planActions(d, cluster, now);
    for (const auto& p : plan.skipped)
      wrong.push_back(fmt::format("decision skipped: {}: {}", p.key, p.error.describe()));
    for (const auto& del : plan.deletions) api.deletePod(del.ns, del.pod, del.uid);
    if (crash) {
      restart();
      return wrong;
    }
    // As the operator does: a gang binds once every pod in its way is gone from the API.
    for (const auto& record : plan.bindings) {
      auto room = plan.making_room.find(record.gang);
      if (room != plan.making_room.end()) {
        const bool gone =
            !room->second.empty() &&
            std::none_of(room->second.begin(), room->second.end(),
                         [&](const PodRef& r) { return api.exists(r.ns, r.pod, r.uid); });
        if (!gone) {
          ++totals.deferred;
          continue;
        }
      }
      std::vector<const troupe::state::PlannedBinding*> done;
      for (const auto& b : record.bindings) {
        if (!api.bind(b.ns, b.pod, b.node, b.gpus)) break;
        done.push_back(&b);
      }
      if (done.size() == record.bindings.size()) {
        ++totals.admissions;
        continue;
      }
      for (const auto* b : done) api.deletePod(b->ns, b->pod, "");  // whole or not at all
    }
    recycle(std::move(cluster), facts_);
    return wrong;
  }

 private:
  std::optional<Policy> shadow_policy_;
  bool actions_only_ = false;
  SnapshotFacts facts_;
  std::optional<EngineSync> engine_;
  std::optional<EngineSync> shadow_;
};

ClusterModel::GangShape randomGang(std::mt19937_64& rng, const std::string& name,
                                   const std::string& queue) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  ClusterModel::GangShape g;
  g.name = name;
  g.queue = queue;
  g.pods = pick(1, 3);
  g.min_pods = pick(0, 3) == 0 ? 1 : g.pods;  // a quarter elastic (when more than one pod)
  static const int kGpus[] = {1, 2, 4, 8, 8};
  g.gpus = kGpus[pick(0, 4)];
  g.ib = pick(0, 3) == 0 ? 1 : 0;
  g.priority = pick(0, 4) == 0 ? 10 : 0;
  g.duration = pick(3, 30);
  g.grace = pick(0, 9) == 0 ? 0 : 30;
  g.termination = pick(0, 6);
  return g;
}

}  // namespace

TEST_CASE("no GPU and no node's resources are ever held twice, whatever happens",
          "[controllers][property][overcommit]") {
  const std::uint64_t base = troupe::testing::envOr("TROUPE_TEST_SEED", 20261127);
  // An unoptimised build (the sanitizers' run) is ten times slower: it runs a tenth of the
  // worlds, the same seeds first.
#ifdef __OPTIMIZE__
  constexpr std::uint64_t kWorlds = 150;
#else
  constexpr std::uint64_t kWorlds = 15;
#endif
  const std::uint64_t count = kWorlds * troupe::testing::envOr("TROUPE_TEST_SCALE", 1);
  std::printf("no-overcommit: seeds %llu..%llu (TROUPE_TEST_SEED=<seed> replays)\n",
              static_cast<unsigned long long>(base),
              static_cast<unsigned long long>(base + count - 1));
  Totals totals;
  for (std::uint64_t seed = base; seed < base + count; ++seed) {
    std::mt19937_64 rng(seed);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const int nodes = pick(2, 4);
    ClusterModel api(nodes, 8, 4);
    // Three teams; one, guaranteed nothing, borrows everything first.
    const int team_b = 8 * pick(0, nodes / 2 + 1);
    api.addQueue("org", "", team_b);
    api.addQueue("team-a", "org", 0);
    api.addQueue("team-b", "org", team_b);
    api.addQueue("team-c", "", 8 * pick(0, 1));
    static const char* kQueues[] = {"team-a", "team-b", "team-c"};
    // In five worlds of eight, a second engine with one optimisation off must decide the same.
    std::optional<Policy> variant;
    bool actions_only = false;
    if (seed % 4 == 0) {
      variant.emplace();
      variant->skip_unchanged_queues = false;
      actions_only = true;  // a skipped queue keeps the numbers of its last look
    } else if (seed % 8 == 1) {
      variant.emplace();
      variant->share_walk_answers = false;
    } else if (seed % 8 == 3) {
      variant.emplace();
      variant->share_preemption_candidates = false;
    } else if (seed % 8 == 5) {
      variant.emplace();
      variant->share_placement_scans = false;
    }
    SchedulerLoop loop(variant, actions_only);
    int gangs = 0;
    // team-a fills the cluster first.
    for (int i = 0; i < nodes * 2; ++i)
      api.submit(randomGang(rng, fmt::format("g{}", gangs++), "team-a"));

    std::ostringstream events;
    auto check = [&](const char* after, std::vector<std::string> broken = {}) {
      ++totals.events;
      for (auto& b : api.overcommitted()) broken.push_back(std::move(b));
      if (broken.empty()) return;
      FAIL("TROUPE_TEST_SEED=" << seed << " replays; wrong after " << after << ":\n"
                               << fmt::format("{}", fmt::join(broken, "\n")) << "\nevents:\n"
                               << events.str() << "\ncluster:\n"
                               << api.describe());
    };
    const int steps = 70;
    for (int step = 0; step < steps; ++step) {
      events << "t=" << api.now() << ":";
      if (pick(0, 2) == 0) {
        const int n = pick(1, 2);
        for (int i = 0; i < n; ++i) {
          const auto g = randomGang(rng, fmt::format("g{}", gangs++), kQueues[pick(0, 2)]);
          events << " submit " << g.name << "(" << g.queue << " " << g.pods << "x" << g.gpus << ")";
          api.submit(g);
        }
      }
      if (pick(0, 24) == 0) {
        const auto names = api.nodeNames();
        const auto& node =
            names[static_cast<std::size_t>(pick(0, static_cast<int>(names.size()) - 1))];
        events << " fail " << node;
        api.failNode(node);
        ++totals.node_failures;
      }
      if (pick(0, 6) == 0) {
        for (const auto& node : api.nodeNames()) api.recoverNode(node);
      }
      if (pick(0, 19) == 0) {
        events << " foreign-pod";
        api.addForeignPod(rng, pick(1, 10));
        check("a pod of another scheduler");
      }
      if (pick(0, 19) == 0) {
        events << " restart";
        loop.restart();
        ++totals.restarts;
      }
      const bool crash = pick(0, 29) == 0;
      if (crash) {
        events << " crash";
        ++totals.restarts;
      }
      check("a scheduling cycle", loop.cycle(api, crash, totals));
      // Sometimes two cycles in one second, as events arrive.
      if (pick(0, 3) == 0) check("a second scheduling cycle", loop.cycle(api, false, totals));
      api.tick(rng);
      check("a second of kubelets and controllers");
      events << "\n";
    }
  }
  std::printf(
      "no-overcommit: %zu cycles, %zu events checked, %zu admissions, %zu bindings deferred, "
      "%zu preemptions, %zu shrinks, %zu waits for terminating pods, %zu restarts, %zu node "
      "failures\n",
      totals.cycles, totals.events, totals.admissions, totals.deferred, totals.preemptions,
      totals.shrinks, totals.waited_for_terminating, totals.restarts, totals.node_failures);
  // The worlds must exercise what the property is about, or it says nothing.
  CHECK(totals.preemptions > count);
  CHECK(totals.shrinks > count / 10);
  CHECK(totals.deferred > count / 10);
  CHECK(totals.waited_for_terminating > count);
}
