// Reclaim candidates are collected once per source queue and shared by the preemption
// searches of a cycle and of the cycles after it (queueing/candidate_pool.h), until the
// source queue's running gangs change, a protected gang comes of age or the nodes change.
// Each story runs twice, with the shared candidates and with candidates collected afresh
// for every search (Policy::share_preemption_candidates), and both must decide and explain
// exactly the same; the wanted outcomes show the story exercises what it says.
#include <catch2/catch.hpp>

#include <functional>
#include <sstream>

#include "test/queueing/builders.h"
#include "test/queueing/scenario.h"

namespace troupe::queueing {
namespace {

using namespace testing;

// Everything a cycle decided and explained, as text.
std::string transcript(const Engine& e, const Decisions& d) {
  std::ostringstream s;
  for (const auto& p : d.preemptions) s << "P " << p.gang << " by " << p.preemptor << "\n";
  for (const auto& r : d.resizes) s << "R " << r.gang << " -" << r.removed.size() << "\n";
  for (const auto& a : d.admissions) {
    s << "A " << a.gang;
    for (const auto& p : a.pods) s << " " << p.node << ":" << p.gpus.size();
    s << "\n";
  }
  for (const auto& gang : d.explained) s << "W " << describe(e.explanation(gang).value()) << "\n";
  return s.str();
}

// A step between cycles, then a cycle at `at`.
struct Step {
  std::function<void(Engine&)> delta;
  Seconds at;
};

// Runs the steps on a fresh engine; returns each cycle's transcript and the last decisions.
std::vector<std::string> run(const std::function<Engine(Policy)>& make,
                             const std::vector<Step>& steps, bool share, Decisions& last) {
  Policy policy;
  policy.share_preemption_candidates = share;
  Engine e = make(policy);
  std::vector<std::string> out;
  for (const auto& step : steps) {
    if (step.delta) step.delta(e);
    last = e.schedule(step.at);
    out.push_back(transcript(e, last));
  }
  return out;
}

void requireSameAsAfresh(const std::function<Engine(Policy)>& make, const std::vector<Step>& steps,
                         Decisions& last) {
  Decisions fresh_last;
  const auto fresh = run(make, steps, false, fresh_last);
  const auto shared = run(make, steps, true, last);
  REQUIRE(shared.size() == fresh.size());
  for (std::size_t c = 0; c < shared.size(); ++c) {
    INFO("cycle " << c << "\nshared:\n" << shared[c] << "afresh:\n" << fresh[c]);
    CHECK(shared[c] == fresh[c]);
  }
}

// Two racks of two 8-GPU nodes:  r0: n-0 c-1, n-1 d-1   r1: n-2 c-2, n-3 d-2.
// Queues a and d are guaranteed 16 GPUs each, c nothing: c (16 held, fair share 0) is the
// only source of victims; d holds exactly its fair share. Gang a-1 wants two whole nodes
// in one rack: evicting c-1 and c-2 frees one node in each rack, so its first search fails
// having tried every candidate, and c's candidates stay in the pool.
Engine twoRacks(Policy policy) {
  Engine e = engineWith(rackOfNodes("n", 4, 2),
                        {queue("a").guaranteedGpus(16), queue("c"), queue("d").guaranteedGpus(16)},
                        std::move(policy));
  REQUIRE(e.addRunning(runningOn(gang("c-1").queue("c").gpus(8).build(), {"n-0"})).ok());
  REQUIRE(e.addRunning(runningOn(gang("d-1").queue("d").gpus(8).build(), {"n-1"})).ok());
  REQUIRE(e.addRunning(runningOn(gang("c-2").queue("c").gpus(8).build(), {"n-2"})).ok());
  REQUIRE(e.addRunning(runningOn(gang("d-2").queue("d").gpus(8).build(), {"n-3"})).ok());
  REQUIRE(e.submit(gang("a-1").queue("a").pods(2).gpus(8).requireTopology("troupe.dev/rack")).ok());
  return e;
}

TEST_CASE("shared reclaim candidates follow the source queue's running gangs across cycles",
          "[queueing][preemption][candidate-pool]") {
  struct Row {
    const char* story;
    const char* started;  // a gang of c started on d-1's node between the cycles, if any
    std::set<std::string> want_preempted;
  };
  const std::vector<Row> rows = {
      // d-1 leaves: c is unchanged, so its candidates are reused, and evicting c-1 now
      // frees rack r0 (n-0 with n-1).
      {"a completion in another queue reuses the source's candidates", "", {"c-1"}},
      // d-1 leaves and c-3 starts on n-1: c's running set changed, so its candidates are
      // collected again and hold c-3 too. The old ones (c-1, c-2) would leave a-1 waiting.
      {"a gang starting in the source queue collects its candidates again", "c-3", {"c-1", "c-3"}},
  };
  for (const auto& row : rows) {
    DYNAMIC_SECTION(row.story) {
      const std::string started = row.started;
      const std::vector<Step> steps = {
          {nullptr, 1000},
          {[&](Engine& e) {
             REQUIRE(e.remove("d-1").ok());
             if (!started.empty())
               REQUIRE(
                   e.addRunning(runningOn(gang(started).queue("c").gpus(8).build(), {"n-1"}, 1000))
                       .ok());
           },
           1001},
      };
      Decisions last;
      requireSameAsAfresh(twoRacks, steps, last);
      CHECK(admitted(last, "a-1"));
      CHECK(preempted(last) == row.want_preempted);
    }
  }
}

TEST_CASE("shared reclaim candidates are collected again within a cycle after an eviction",
          "[queueing][preemption][candidate-pool]") {
  // Four 8-GPU nodes, all held by queue c (no guarantee); queue a, guaranteed 32, submits
  // two gangs of one node. Both search c in the same cycle: the second must see the first
  // one's victim gone, and evict another.
  auto make = [](Policy policy) {
    Engine e = engineWith(rackOfNodes("n", 4, 4), {queue("a").guaranteedGpus(32), queue("c")},
                          std::move(policy));
    for (int i = 0; i < 4; ++i) {
      const std::string n = std::to_string(i);
      REQUIRE(e.addRunning(runningOn(gang("c-" + n).queue("c").gpus(8).build(), {"n-" + n},
                                     static_cast<Seconds>(i)))
                  .ok());
    }
    REQUIRE(e.submit(gang("a-1").queue("a").gpus(8).submittedAt(10)).ok());
    REQUIRE(e.submit(gang("a-2").queue("a").gpus(8).submittedAt(11)).ok());
    return e;
  };
  Decisions last;
  requireSameAsAfresh(make, {{nullptr, 1000}}, last);
  CHECK(admitted(last, "a-1"));
  CHECK(admitted(last, "a-2"));
  // Less run time lost first: c-3 and c-2 started last.
  CHECK(preempted(last) == std::set<std::string>{"c-2", "c-3"});
}

TEST_CASE("shared reclaim candidates are collected again when a protected gang comes of age",
          "[queueing][preemption][candidate-pool]") {
  // Queue c keeps its gangs for minRuntimeSeconds 100; c-1 started at 950. At 1000 it is
  // protected and a-1 waits; from 1050 it may be reclaimed. Reusing the candidates of the
  // cycle at 1000 (none) would keep a-1 waiting.
  struct Row {
    const char* story;
    Seconds second_cycle;
    bool want_admitted;
  };
  const std::vector<Row> rows = {
      {"still protected a cycle later", 1049, false},
      {"of age: reclaimed", 1050, true},
  };
  for (const auto& row : rows) {
    DYNAMIC_SECTION(row.story) {
      auto make = [](Policy policy) {
        Engine e = engineWith(rackOfNodes("n", 1, 1),
                              {queue("a").guaranteedGpus(8), queue("c").minRuntime(100)},
                              std::move(policy));
        REQUIRE(e.addRunning(runningOn(gang("c-1").queue("c").gpus(8).build(), {"n-0"}, 950)).ok());
        REQUIRE(e.submit(gang("a-1").queue("a").gpus(8).submittedAt(990)).ok());
        return e;
      };
      Decisions last;
      requireSameAsAfresh(make, {{nullptr, 1000}, {nullptr, row.second_cycle}}, last);
      CHECK(admitted(last, "a-1") == row.want_admitted);
      CHECK(preempted(last) ==
            (row.want_admitted ? std::set<std::string>{"c-1"} : std::set<std::string>{}));
    }
  }
}

}  // namespace
}  // namespace troupe::queueing
