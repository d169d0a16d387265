// GPU types: to the engine a type is a node label and a quota slot of its own, and a gang
// that accepts several types is a gang with alternatives (GangSpec::alternatives). Its
// ways are tried in order of preference under its queue's VariantFungibility; per-type
// reclaim follows from per-resource quotas.
#include <catch2/catch.hpp>

#include "test/queueing/builders.h"
#include "test/queueing/scenario.h"

namespace troupe::queueing {
namespace {

using namespace testing;

constexpr std::size_t kSlotA = kFirstExtended;
constexpr std::size_t kSlotB = kFirstExtended + 1;
const std::pair<std::string, std::size_t> kA{"a", kSlotA};
const std::pair<std::string, std::size_t> kB{"b", kSlotB};

// Nodes <type>-0 .. <type>-(n-1) of 8 GPUs of the type.
std::vector<NodeSpec> nodesOfType(const std::pair<std::string, std::size_t>& type, int n) {
  std::vector<NodeSpec> out;
  for (int i = 0; i < n; ++i)
    out.push_back(
        node(type.first + "-" + std::to_string(i)).gpus(8).gpuType(type.first, type.second));
  return out;
}

std::vector<NodeSpec> twoOfEach() {
  std::vector<NodeSpec> out = nodesOfType(kA, 2);
  for (auto& n : nodesOfType(kB, 2)) out.push_back(n);
  return out;
}

// Whether every pod of the admission is on a node of `type`.
bool allOnType(const Admission& a, const std::string& type) {
  for (const auto& p : a.pods)
    if (p.node.rfind(type + "-", 0) != 0) return false;
  return !a.pods.empty();
}

constexpr auto kStay = VariantFungibility::Stay;
constexpr auto kTryNext = VariantFungibility::TryNext;

TEST_CASE("a gang whose preferred type is full runs on the next, or preempts for it under Stay",
          "[queueing][gpu-types]") {
  struct Case {
    const char* name;
    VariantFungibility when_preempting;
    bool lab_preemptible;
    const char* want_variant;
    bool want_preemption;
  };
  // lab runs 2 x 8 GPUs of type a: all 16 of a are held, b's 16 are free. team is
  // guaranteed 8 of a and asks 1 x 8, a then b.
  const std::vector<Case> cases = {
      // a needs a preemption: remembered; b fits (team takes 8 of b past its guarantee 0,
      // borrowing, which whenBorrowing Stay takes): it runs on b, nobody is evicted.
      {"TryNext: it runs on b now", kTryNext, true, "b", false},
      // The search on a runs first: team holds 0 of its 8 of a, lab 16 past its 0: lab's
      // gang is reclaimed and team runs on a.
      {"Stay: it reclaims a", kStay, true, "a", true},
      // The search on a finds no victim (lab's gang may not be preempted): on to b.
      {"Stay, no victim: it runs on b", kStay, false, "b", false},
  };
  for (const auto& tc : cases) DYNAMIC_SECTION(tc.name) {
      Engine e = engineWith(
          twoOfEach(), {queue("team").guaranteed(gpus(8)).guaranteedIn(kSlotA, 8).whenPreempting(
                            tc.when_preempting),
                        queue("lab")});
      GangBuilder lab = gang("lab-a").queue("lab").pods(2).gpus(8).gpuTypes({kA});
      if (!tc.lab_preemptible) lab.notPreemptible();
      REQUIRE(e.addRunning(runningOn(lab, {"a-0", "a-1"})).ok());
      REQUIRE(
          e.submit(gang("train").queue("team").gpus(8).gpuTypes({kA, kB}).submittedAt(10)).ok());
      const Decisions d = e.schedule(20);
      const Admission* a = admissionOf(d, "train");
      REQUIRE(a != nullptr);
      CHECK(a->variant == tc.want_variant);
      CHECK(allOnType(*a, tc.want_variant));
      CHECK((preempted(d) == std::set<std::string>{"lab-a"}) == tc.want_preemption);
      // The engine holds it on the variant it runs on, the other after it.
      const auto r = e.running("train");
      REQUIRE(r.has_value());
      CHECK(r->spec.variant == tc.want_variant);
      REQUIRE(r->spec.alternatives.size() == 1);
      CHECK(r->spec.alternatives[0].name != tc.want_variant);
    }
}

TEST_CASE("a type that fits only by borrowing is taken under Stay, passed over under TryNext",
          "[queueing][gpu-types]") {
  struct Case {
    const char* name;
    VariantFungibility when_borrowing;
    bool b_full;
    const char* want_variant;
  };
  // One node of each type. team is guaranteed 8 of b and nothing of a; it asks 1 x 8, a
  // then b. On a it would hold 8 of a past its guarantee 0: borrowing.
  const std::vector<Case> cases = {
      {"Stay: it borrows a", kStay, false, "a"},
      // b fits within its guarantee (8 of 8): taken at once.
      {"TryNext: it runs on b within its guarantee", kTryNext, false, "b"},
      // b is held by a gang nobody may preempt; the search on b (whenPreempting TryNext) is
      // remembered; the borrowing fit on a comes first among the remembered options.
      {"TryNext, b full: it borrows a after all", kTryNext, true, "a"},
  };
  for (const auto& tc : cases) DYNAMIC_SECTION(tc.name) {
      std::vector<NodeSpec> nodes = nodesOfType(kA, 1);
      nodes.push_back(nodesOfType(kB, 1)[0]);
      Engine e = engineWith(
          nodes, {queue("team").guaranteed(gpus(8)).guaranteedIn(kSlotB, 8).whenBorrowing(
                      tc.when_borrowing),
                  queue("lab")});
      if (tc.b_full)
        REQUIRE(e.addRunning(
                     runningOn(gang("lab-b").queue("lab").gpus(8).gpuTypes({kB}).notPreemptible(),
                               {"b-0"}))
                    .ok());
      REQUIRE(e.submit(gang("train").queue("team").gpus(8).gpuTypes({kA, kB})).ok());
      const Decisions d = e.schedule(20);
      const Admission* a = admissionOf(d, "train");
      REQUIRE(a != nullptr);
      CHECK(a->variant == tc.want_variant);
      CHECK(allOnType(*a, tc.want_variant));
      CHECK(d.preemptions.empty());
    }
}

TEST_CASE("a queue guaranteed 8 of type a reclaims them from a borrower, leaving b untouched",
          "[queueing][gpu-types][reclaim]") {
  struct Case {
    const char* name;
    std::vector<std::pair<std::string, std::size_t>> types;
  };
  // lab, guaranteed nothing, runs four 1 x 8 gangs: two on a, two on b; the cluster is
  // full. owner is guaranteed 8 GPUs, all of a: holding 0 of them it reclaims 8 of a.
  // Its gang counts in its demand as its preferred way (8 of a): lab's fair share is 8 of
  // a (2.0 held) and all 16 of b (1.0), so a gang of a is what lab gives back.
  const std::vector<Case> cases = {
      {"a gang of type a", {kA}},
      // Both ways need preemption; the searches run in order: a first, which succeeds.
      {"a gang that accepts a, then b", {kA, kB}},
  };
  for (const auto& tc : cases) DYNAMIC_SECTION(tc.name) {
      Engine e = engineWith(
          twoOfEach(), {queue("owner").guaranteed(gpus(8)).guaranteedIn(kSlotA, 8), queue("lab")});
      REQUIRE(e.addRunning(runningOn(gang("la-0").queue("lab").gpus(8).gpuTypes({kA}), {"a-0"}, 1))
                  .ok());
      REQUIRE(e.addRunning(runningOn(gang("la-1").queue("lab").gpus(8).gpuTypes({kA}), {"a-1"}, 2))
                  .ok());
      REQUIRE(e.addRunning(runningOn(gang("lb-0").queue("lab").gpus(8).gpuTypes({kB}), {"b-0"}, 3))
                  .ok());
      REQUIRE(e.addRunning(runningOn(gang("lb-1").queue("lab").gpus(8).gpuTypes({kB}), {"b-1"}, 4))
                  .ok());
      REQUIRE(e.submit(gang("own").queue("owner").gpus(8).gpuTypes(tc.types).submittedAt(10)).ok());
      const Decisions d = e.schedule(20);
      const Admission* a = admissionOf(d, "own");
      REQUIRE(a != nullptr);
      CHECK(a->variant == "a");
      CHECK(allOnType(*a, "a"));
      // One gang of a goes; both of b run on.
      REQUIRE(d.preemptions.size() == 1);
      CHECK(d.preemptions[0].gang.rfind("la-", 0) == 0);
      CHECK(e.isRunning("lb-0"));
      CHECK(e.isRunning("lb-1"));
      // No ping-pong: the evicted gang waits; nothing moves in the next cycles.
      CHECK(e.schedule(30).empty());
      CHECK(e.schedule(40).empty());
    }
}

TEST_CASE("a gang is never split across types: it waits for its first type that could fit",
          "[queueing][gpu-types][explain]") {
  SECTION("16 GPUs are free, 8 of each type: a 2 x 8 gang of a or b waits") {
    Engine e = engineWith(twoOfEach(), {queue("team"), queue("lab")});
    REQUIRE(e.addRunning(runningOn(gang("la").queue("lab").gpus(8).gpuTypes({kA}).notPreemptible(),
                                   {"a-1"}))
                .ok());
    REQUIRE(e.addRunning(runningOn(gang("lb").queue("lab").gpus(8).gpuTypes({kB}).notPreemptible(),
                                   {"b-1"}))
                .ok());
    REQUIRE(e.submit(gang("wide").queue("team").pods(2).gpus(8).gpuTypes({kA, kB})).ok());
    const Decisions d = e.schedule(20);
    CHECK(d.admissions.empty());
    // a could hold it on an empty cluster: it waits for a, with a's numbers (8 of a).
    const auto x = pendingOf(e, d, "wide");
    REQUIRE(x.has_value());
    CHECK(x->variant == "a");
    CHECK(x->request[kSlotA] == 16);
    CHECK(x->request[kSlotB] == 0);
    CHECK_THAT(describe(*x), Catch::Contains("variant a"));
  }
  SECTION("a's nodes are too small for it ever: it waits for b") {
    std::vector<NodeSpec> nodes = {node("a-0").gpus(4).gpuType("a", kSlotA)};
    for (auto& n : nodesOfType(kB, 1)) nodes.push_back(n);
    Engine e = engineWith(nodes, {queue("team"), queue("lab")});
    REQUIRE(e.addRunning(runningOn(gang("lb").queue("lab").gpus(8).gpuTypes({kB}).notPreemptible(),
                                   {"b-0"}))
                .ok());
    REQUIRE(e.submit(gang("big").queue("team").gpus(8).gpuTypes({kA, kB})).ok());
    const Decisions d = e.schedule(20);
    CHECK(d.admissions.empty());
    const auto x = pendingOf(e, d, "big");
    REQUIRE(x.has_value());
    CHECK(x->variant == "b");
    CHECK(x->reason != PendingReason::Inadmissible);
  }
}

TEST_CASE("an elastic gang grows only on the type it runs on", "[queueing][gpu-types][elastic]") {
  // b-1 is held by a gang nobody may preempt; a-0, a-1 and b-0 are free. The gang asks 1
  // to 4 pods x 8, b then a: 4 pods do not fit b now, 1 does: it starts on b-0 at its
  // minimum. It may grow on b only, where nothing is free: a's 16 free GPUs stay free.
  Engine e = engineWith(twoOfEach(), {queue("team"), queue("lab")});
  REQUIRE(e.addRunning(
               runningOn(gang("lb").queue("lab").gpus(8).gpuTypes({kB}).notPreemptible(), {"b-1"}))
              .ok());
  REQUIRE(e.submit(gang("el").queue("team").gpus(8).elastic(1, 4).gpuTypes({kB, kA})).ok());
  const Decisions d = e.schedule(10);
  const Admission* a = admissionOf(d, "el");
  REQUIRE(a != nullptr);
  CHECK(a->variant == "b");
  CHECK(allOnType(*a, "b"));
  CHECK(a->pods.size() == 1);
  const Decisions later = e.schedule(20);
  CHECK(later.resizes.empty());
  CHECK(e.running("el")->pods.size() == 1);
  // Once b-1 frees, it grows there: to 2 pods, both on b.
  REQUIRE(e.remove("lb").ok());
  const Decisions freed = e.schedule(30);
  REQUIRE(freed.resizes.size() == 1);
  for (const auto& p : freed.resizes[0].added) CHECK(p.node == "b-1");
  CHECK(e.running("el")->pods.size() == 2);
}

TEST_CASE("a gang held back on one type by its queue's limit starts once the limit frees",
          "[queueing][gpu-types][incremental]") {
  // team may hold at most 8 of a and holds them (ta on a-0); b is full with lab's gang
  // nobody may preempt. "next" asks 1 x 8, a then b: a is held back by the limit (8 + 8 >
  // 8), b by room. ta ends: team holds 0 of a, and next starts on a-0 or a-1 at once,
  // although no kind it waited for on b could fit more.
  std::vector<NodeSpec> nodes = nodesOfType(kA, 2);
  for (auto& n : nodesOfType(kB, 1)) nodes.push_back(n);
  Engine e = engineWith(nodes, {queue("team").limitIn(kSlotA, 8), queue("lab")});
  REQUIRE(e.addRunning(runningOn(gang("ta").queue("team").gpus(8).gpuTypes({kA}), {"a-0"})).ok());
  REQUIRE(e.addRunning(
               runningOn(gang("lb").queue("lab").gpus(8).gpuTypes({kB}).notPreemptible(), {"b-0"}))
              .ok());
  REQUIRE(e.submit(gang("next").queue("team").gpus(8).gpuTypes({kA, kB})).ok());
  CHECK(e.schedule(10).admissions.empty());
  CHECK(e.schedule(20).empty());
  REQUIRE(e.remove("ta").ok());
  const Decisions d = e.schedule(30);
  const Admission* a = admissionOf(d, "next");
  REQUIRE(a != nullptr);
  CHECK(a->variant == "a");
}

TEST_CASE("a gang's alternatives must match its pod sets", "[queueing][gpu-types][validation]") {
  Engine e = engineWith(twoOfEach(), {queue("team")});
  GangSpec unnamed = gang("g1").queue("team").gpuTypes({kA, kB});
  unnamed.variant.clear();
  GangSpec twice = gang("g2").queue("team").gpuTypes({kA, kA});
  GangSpec fewer = gang("g3").queue("team").gpuTypes({kA, kB});
  fewer.alternatives[0].pod_sets.clear();
  const auto s1 = e.submit(unnamed);
  const auto s2 = e.submit(twice);
  const auto s3 = e.submit(fewer);
  REQUIRE_FALSE(s1.ok());
  REQUIRE_FALSE(s2.ok());
  REQUIRE_FALSE(s3.ok());
  CHECK(s1.error().field_path == "gangs[g1].variant");
  CHECK(s2.error().field_path == "gangs[g2].alternatives[0].name");
  CHECK(s3.error().field_path == "gangs[g3].alternatives[0].podSets");
}

}  // namespace
}  // namespace troupe::queueing
