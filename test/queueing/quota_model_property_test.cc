// Property: on thousands of random queue trees (depth 1 to 4, guarantees, limits and
// lendingLimits at every level, GPUs and CPU) over tiny clusters, the engine decides one
// pending gang as the reference model (quota_model.h) does: Inadmissible exactly when the
// model finds no admission even on an empty cluster; admitted exactly when some victim
// set satisfies every rule, with a victim set the model accepts and no larger than the
// model's minimum plus kVictimSlack; and when a limit binds, the reason names the level the
// model names.
//   TROUPE_TEST_SEED=<n>   replays from seed n (a failure prints its seed)
//   TROUPE_TEST_SCALE=<k>  runs k times as many trees
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <sstream>

#include "queueing/engine.h"
#include "test/queueing/builders.h"
#include "test/queueing/quota_model.h"
#include "test/support/env_or.h"

namespace troupe::queueing {
namespace {

using model::World;

// The engine's search is greedy: it releases candidates cheapest first (lower priorities
// first) until the gang fits, then drops every victim it can. That set is minimal (no
// victim can be spared) but may hold more gangs than the smallest set: several gangs of
// low priority rather than one of a higher one. The slack allowed over the model's
// minimum m is m + 1 (docs/scheduling.md, "Known limits").
std::size_t victimSlack(std::size_t minimum) { return minimum + 1; }

class Dice {
 public:
  explicit Dice(std::uint64_t seed) : rng_(seed) {}
  std::int64_t operator()(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(rng_() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  bool chance(int one_in) { return (*this)(1, one_in) == 1; }

 private:
  std::mt19937_64 rng_;
};

constexpr std::int64_t kOneCore = 1000;

// A tree of queues, parents first: guarantees within the parent's (consistent), limits at
// or above the guarantee, lendingLimits within it.
void addQueues(World& w, Dice& d, int parent, int depth, int max_depth,
               const ResourceVector& room) {
  const int children = parent < 0 ? static_cast<int>(d(1, 2)) : static_cast<int>(d(1, 3));
  ResourceVector left = room;
  for (int c = 0; c < children && w.queues.size() < 9; ++c) {
    model::Queue q;
    q.name = (parent < 0 ? std::string("q") : w.queues[static_cast<std::size_t>(parent)].name) +
             std::to_string(c);
    q.parent = parent;
    for (std::size_t r : {kGpu, kCpu}) {
      if (!d.chance(3)) q.guaranteed[r] = d(0, std::max<std::int64_t>(left[r], 0));
      left[r] -= q.guaranteed[r];
      if (d.chance(2)) {
        const std::int64_t unit = r == kGpu ? 1 : kOneCore;
        q.limit[r] = q.guaranteed[r] + unit * d(0, r == kGpu ? 16 : 16);
      }
      if (q.guaranteed[r] > 0 && d.chance(3)) q.lending_limit[r] = d(0, q.guaranteed[r]);
    }
    q.weight = d(0, 3);
    q.reclaim = !d.chance(5);
    q.within_queue = !d.chance(4);
    const int self = static_cast<int>(w.queues.size());
    w.queues.push_back(q);
    if (depth < max_depth && d.chance(2)) addQueues(w, d, self, depth + 1, max_depth, q.guaranteed);
  }
}

std::vector<int> leaves(const World& w) {
  std::vector<int> out;
  for (std::size_t q = 0; q < w.queues.size(); ++q)
    if (std::none_of(w.queues.begin(), w.queues.end(),
                     [&](const model::Queue& x) { return x.parent == static_cast<int>(q); }))
      out.push_back(static_cast<int>(q));
  return out;
}

ResourceVector podShape(Dice& d) {
  const std::int64_t gpus[] = {1, 2, 4};
  return ResourceVector::of(gpus[d(0, 2)], kOneCore * d(1, 4), 0);
}

// Whether every limit above queue q holds `more` on top of what runs.
bool withinLimits(const World& w, int q, const ResourceVector& more) {
  for (int a = q; a >= 0; a = w.queues[static_cast<std::size_t>(a)].parent) {
    ResourceVector held = more;
    for (const auto& g : w.running) {
      int x = g.queue;
      while (x >= 0 && x != a) x = w.queues[static_cast<std::size_t>(x)].parent;
      if (x == a) held += g.total();
    }
    if (!held.fitsIn(w.queues[static_cast<std::size_t>(a)].limit)) return false;
  }
  return true;
}

World randomWorld(std::uint64_t seed) {
  Dice d(seed);
  World w;
  const int nodes = static_cast<int>(d(1, 3));
  ResourceVector capacity;
  for (int n = 0; n < nodes; ++n) {
    w.nodes.push_back(
        ResourceVector::of(d.chance(2) ? 8 : 4, kOneCore * (d.chance(2) ? 16 : 8), 0));
    capacity += w.nodes.back();
  }
  addQueues(w, d, -1, 1, static_cast<int>(d(1, 4)), capacity);
  const std::vector<int> leaf = leaves(w);
  // Running gangs, placed where they fit and within their limits, as admissions left them.
  std::vector<ResourceVector> free = w.nodes;
  const int gangs = static_cast<int>(d(0, 7));
  for (int i = 0; i < gangs; ++i) {
    model::Gang g;
    g.name = "r" + std::to_string(i);
    g.queue = leaf[static_cast<std::size_t>(d(0, static_cast<std::int64_t>(leaf.size()) - 1))];
    g.priority = static_cast<std::int32_t>(d(0, 2));
    g.pod = podShape(d);
    g.preemptible = !d.chance(8);
    const int pods = static_cast<int>(d(1, 3));
    std::vector<ResourceVector> trial = free;
    for (int p = 0; p < pods; ++p) {
      const int start = static_cast<int>(d(0, nodes - 1));
      for (int k = 0; k < nodes; ++k) {
        const int n = (start + k) % nodes;
        if (g.pod.fitsIn(trial[static_cast<std::size_t>(n)])) {
          trial[static_cast<std::size_t>(n)] -= g.pod;
          g.nodes.push_back(n);
          break;
        }
      }
    }
    if (static_cast<int>(g.nodes.size()) != pods || !withinLimits(w, g.queue, g.total())) continue;
    free = trial;
    w.running.push_back(g);
  }
  w.pending.name = "pending";
  w.pending.queue =
      leaf[static_cast<std::size_t>(d(0, static_cast<std::int64_t>(leaf.size()) - 1))];
  w.pending.priority = static_cast<std::int32_t>(d(0, 3));
  w.pending.pod = podShape(d);
  w.pending.pods = static_cast<std::int32_t>(d(1, 3));
  return w;
}

std::string describeWorld(const World& w) {
  std::ostringstream s;
  for (std::size_t n = 0; n < w.nodes.size(); ++n)
    s << "node n" << n << ": " << w.nodes[n][kGpu] << " GPUs, " << w.nodes[n][kCpu] << "m CPU\n";
  auto amount = [](std::int64_t v) {
    return v >= ResourceVector::kUnlimited ? std::string("-") : std::to_string(v);
  };
  for (const auto& q : w.queues)
    s << "queue " << q.name << " (parent "
      << (q.parent < 0 ? std::string("-") : w.queues[static_cast<std::size_t>(q.parent)].name)
      << "): guaranteed " << q.guaranteed[kGpu] << "/" << q.guaranteed[kCpu] << " limit "
      << amount(q.limit[kGpu]) << "/" << amount(q.limit[kCpu]) << " lending "
      << amount(q.lending_limit[kGpu]) << "/" << amount(q.lending_limit[kCpu]) << " weight "
      << q.weight << (q.reclaim ? "" : " no-reclaim") << (q.within_queue ? "" : " no-within")
      << "\n";
  auto gang = [&](const model::Gang& g) {
    s << g.name << " in " << w.queues[static_cast<std::size_t>(g.queue)].name << " priority "
      << g.priority << ": " << (g.nodes.empty() ? g.pods : static_cast<int>(g.nodes.size()))
      << " x " << g.pod[kGpu] << " GPU " << g.pod[kCpu] << "m" << (g.preemptible ? "" : " pinned");
    for (int n : g.nodes) s << " n" << n;
    s << "\n";
  };
  for (const auto& g : w.running) gang(g);
  gang(w.pending);
  return s.str();
}

struct Tally {
  std::size_t worlds = 0, inadmissible = 0, admitted = 0, preempting = 0, limited = 0,
              over_minimum = 0;
};

void checkWorld(std::uint64_t seed, Tally& tally) {
  const World w = randomWorld(seed);
  const model::Answer want = model::admit(w);
  auto got = scheduleSnapshot(model::toSnapshot(w, 1000));
  REQUIRE(got.ok());
  const Decisions& d = got->decisions;
  const bool admitted = !d.admissions.empty();
  std::optional<PendingExplanation> why;
  for (const auto& e : got->pending)
    if (e.gang == "pending") why = e;
  std::vector<std::size_t> victims;
  for (const auto& p : d.preemptions)
    for (std::size_t i = 0; i < w.running.size(); ++i)
      if (w.running[i].name == p.gang) victims.push_back(i);
  std::string victim_names;
  for (std::size_t v : victims) victim_names += w.running[v].name + " ";
  std::string model_names;
  for (std::size_t v : want.one_minimum) model_names += w.running[v].name + " ";
  INFO("seed " << seed << " (TROUPE_TEST_SEED=" << seed << " replays it)\n"
               << describeWorld(w) << "engine: "
               << (admitted ? "admitted, victims " + victim_names
                   : why    ? describe(*why)
                            : std::string("no explanation"))
               << "\nmodel: "
               << (want.inadmissible ? "inadmissible"
                   : want.admissible ? "admissible with " + std::to_string(want.min_victims) +
                                           " victims: " + model_names
                                     : "not admissible now"));
  ++tally.worlds;
  REQUIRE(admitted == (!d.admissions.empty()));
  REQUIRE((admitted || why.has_value()));
  CHECK((!admitted && why->reason == PendingReason::Inadmissible) == want.inadmissible);
  CHECK(admitted == want.admissible);
  if (want.inadmissible) ++tally.inadmissible;
  if (admitted) {
    ++tally.admitted;
    if (!victims.empty()) ++tally.preempting;
    // The engine's choice is one the model accepts, and about as small as the smallest.
    CHECK(model::check(w, victims) == "");
    CHECK(victims.size() <= want.min_victims + victimSlack(want.min_victims));
    if (victims.size() > want.min_victims) ++tally.over_minimum;
  }
  if (want.binding != model::kNowhere && !want.admissible) {
    ++tally.limited;
    // The limit that binds is named: the same level, from the gang's queue up (the cluster,
    // where what queues keep unlent leaves too little free capacity, is a placement
    // shortage and keeps its placement reason).
    REQUIRE(why.has_value());
    CHECK(why->limited_by_quota);
    if (want.binding == model::kCluster) {
      CHECK(why->limit_queue.empty());
    } else {
      CHECK(why->limit_queue == w.queues[static_cast<std::size_t>(want.binding)].name);
      if (!want.inadmissible) CHECK(why->reason == PendingReason::QueueAtLimit);
    }
  }
}

TEST_CASE("the engine admits, preempts and names the binding limit as the reference model does",
          "[queueing][quota][property]") {
  const std::uint64_t base = troupe::testing::envOr("TROUPE_TEST_SEED", 28000);
  const std::uint64_t count = 5000 * troupe::testing::envOr("TROUPE_TEST_SCALE", 1);
  std::printf("quota model: seeds %llu..%llu (TROUPE_TEST_SEED=<seed> replays)\n",
              static_cast<unsigned long long>(base),
              static_cast<unsigned long long>(base + count - 1));
  Tally tally;
  for (std::uint64_t seed = base; seed < base + count; ++seed) checkWorld(seed, tally);
  std::printf(
      "quota model: %zu worlds, %zu inadmissible, %zu admitted (%zu preempting, %zu above the "
      "model's minimum), %zu held back by a limit\n",
      tally.worlds, tally.inadmissible, tally.admitted, tally.preempting, tally.over_minimum,
      tally.limited);
  // The worlds must exercise each answer, or the property says little.
  CHECK(tally.preempting > count / 50);
  CHECK(tally.limited > count / 50);
  CHECK(tally.inadmissible > count / 100);
}

}  // namespace
}  // namespace troupe::queueing
