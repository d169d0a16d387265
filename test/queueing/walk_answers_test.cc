// A gang may be given the answer an earlier gang of its queue's walk got for the same ask
// (Policy::share_walk_answers). The answer must be the one trying the gang would give, so
// it is forgotten whenever a memo the answer came from is written in between.
#include <catch2/catch.hpp>

#include "test/queueing/builders.h"
#include "test/queueing/scenario.h"

namespace troupe::queueing {
namespace {

using namespace testing;

// Two nodes, of 2 and 6 GPUs. Queue a (guaranteed 4) runs 2 GPUs; queue b (guaranteed 4)
// borrows the other 6 with a gang that may not be preempted. Queue a waits with, in walk order,
// first (4 pods), small (1 pod) and second (4 pods, the same ask as first), all 1-GPU pods.
// first would take a to 6 of its 4: over its fair share. small would end within it, and
// its search finds only the protected gang; that failure replaces the remembered one for
// the kind, and second, tried, reads it. Given first's answer, second would read
// otherwise. With a runtime estimate small shares no answer itself, so only the check
// made when second looks for one forgets first's; without, small's own answer replaces it.
Engine protectedBorrower(bool share, bool small_estimated) {
  Policy policy;
  policy.share_walk_answers = share;
  Engine e = engineWith({node("n-0").gpus(2).build(), node("n-1").gpus(6).build()},
                        {queue("a").guaranteedGpus(4), queue("b").guaranteedGpus(4)}, policy);
  REQUIRE(e.addRunning(runningOn(gang("a-run").queue("a").gpus(2).build(), {"n-0"})).ok());
  REQUIRE(
      e.addRunning(runningOn(gang("b-run").queue("b").gpus(6).notPreemptible().build(), {"n-1"}))
          .ok());
  REQUIRE(e.submit(gang("first").queue("a").pods(4).gpus(1).submittedAt(1)).ok());
  GangBuilder small = gang("small").queue("a").pods(1).gpus(1).submittedAt(2);
  if (small_estimated) small.runtimeEstimate(3600);
  REQUIRE(e.submit(small).ok());
  REQUIRE(e.submit(gang("second").queue("a").pods(4).gpus(1).submittedAt(3)).ok());
  return e;
}

TEST_CASE("a shared walk answer is forgotten when a memo it came from is written",
          "[queueing][explanation]") {
  const bool small_estimated = GENERATE(false, true);
  INFO("small has a runtime estimate: " << small_estimated);
  Engine tried = protectedBorrower(false, small_estimated);
  Engine shared = protectedBorrower(true, small_estimated);
  const Decisions d_tried = tried.schedule(100);
  const Decisions d_shared = shared.schedule(100);
  CHECK(d_tried.admissions.empty());
  CHECK(d_tried.preemptions.empty());

  // The scenario is what it says: trying every gang, the two gangs of one ask are
  // explained differently, because the failure remembered for the kind changed between.
  const auto first = tried.explanation("first");
  const auto second = tried.explanation("second");
  REQUIRE(first.has_value());
  REQUIRE(second.has_value());
  CHECK(first->reason == PendingReason::OverFairShare);
  CHECK(second->reason == PendingReason::WaitingForReclaim);
  CHECK(second->detail.find("protected") != std::string::npos);

  // Sharing answers decides and explains exactly the same.
  CHECK(d_shared.admissions.empty());
  CHECK(d_shared.preemptions.empty());
  for (const char* name : {"first", "small", "second"}) {
    INFO(name);
    const auto a = tried.explanation(name);
    const auto b = shared.explanation(name);
    REQUIRE(a.has_value());
    REQUIRE(b.has_value());
    CHECK(*b == *a);
  }
}

// Gangs that accept the same GPU types, in the same order, share one answer within a walk,
// and a gang given it waits on the type the first one waits on. Type a's nodes have 4 GPUs:
// a pod of 8 never fits there (a is inadmissible). Type b's one node of 8 is held by a
// gang that may not be preempted: b has no room. So each of the three gangs, a then b,
// waits on b, its first type that could ever fit, whether tried or given the answer.
Engine waitingOnTheirSecondType(bool share) {
  Policy policy;
  policy.share_walk_answers = share;
  const std::pair<std::string, std::size_t> a{"a", kFirstExtended};
  const std::pair<std::string, std::size_t> b{"b", kFirstExtended + 1};
  Engine e = engineWith({node("a-0").gpus(4).gpuType(a.first, a.second).build(),
                         node("a-1").gpus(4).gpuType(a.first, a.second).build(),
                         node("b-0").gpus(8).gpuType(b.first, b.second).build()},
                        {queue("team"), queue("lab")}, policy);
  REQUIRE(e.addRunning(runningOn(gang("lab-b").queue("lab").gpus(8).gpuTypes({b}).notPreemptible(),
                                 {"b-0"}))
              .ok());
  for (int i = 0; i < 3; ++i)
    REQUIRE(e.submit(gang("train-" + std::to_string(i))
                         .queue("team")
                         .gpus(8)
                         .gpuTypes({a, b})
                         .submittedAt(10 + i))
                .ok());
  return e;
}

TEST_CASE("gangs of the same GPU types share a walk answer and wait on the same type",
          "[queueing][explanation][gpu-types]") {
  Engine tried = waitingOnTheirSecondType(false);
  Engine shared = waitingOnTheirSecondType(true);
  CHECK(tried.schedule(100).admissions.empty());
  CHECK(shared.schedule(100).admissions.empty());
  for (const char* name : {"train-0", "train-1", "train-2"}) {
    INFO(name);
    const auto a = tried.explanation(name);
    const auto b = shared.explanation(name);
    REQUIRE(a.has_value());
    REQUIRE(b.has_value());
    CHECK(a->variant == "b");
    CHECK(*b == *a);
  }
}

}  // namespace
}  // namespace troupe::queueing
