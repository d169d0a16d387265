// lendingLimit at admission: the part of a guarantee a queue does not lend stays idle for it,
// so no other queue is admitted onto it, at any level of the tree.
#include <catch2/catch.hpp>

#include "test/queueing/builders.h"
#include "test/queueing/scenario.h"

namespace troupe::queueing {
namespace {

using namespace testing;

GangBuilder job(const std::string& name, const std::string& queue, std::int32_t pods) {
  return gang(name).queue(queue).pods(pods).gpus(1).cpu(0).memory(0).submittedAt(1);
}

TEST_CASE("the guarantee a queue does not lend is no room for another queue",
          "[queueing][quota][lending]") {
  struct Case {
    const char* story;
    std::vector<QueueSpec> queues;
    std::int32_t b_pods;  // queue b's gang: 1-GPU pods
    bool want_admitted;
  };
  // Two 8-GPU nodes. Queue a is guaranteed 8 and lends at most 2: it keeps 6 unlent.
  const std::vector<Case> cases = {
      {"b may take what a lends and what nobody is guaranteed: 16 - 6 = 10",
       {queue("a").guaranteedGpus(8).lendingLimitGpus(2), queue("b")},
       10,
       true},
      {"but not the 6 a keeps",
       {queue("a").guaranteedGpus(8).lendingLimitGpus(2), queue("b")},
       11,
       false},
      {"a queue that lends all of its guarantee keeps nothing",
       {queue("a").guaranteedGpus(8), queue("b")},
       16,
       true},
      {"under a common parent the parent's limit counts what a keeps: 12 - 6 = 6",
       {queue("org").limitGpus(12).guaranteedGpus(8),
        queue("a").parent("org").guaranteedGpus(8).lendingLimitGpus(2), queue("b").parent("org")},
       7,
       false},
      {"what a child keeps lies inside what its parent keeps: counted once",
       {queue("org").guaranteedGpus(8).lendingLimitGpus(0),
        queue("a").parent("org").guaranteedGpus(8).lendingLimitGpus(0), queue("b")},
       8,
       true},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.story) {
      Engine e = engineWith(rackOfNodes("n", 2, 2), tc.queues);
      REQUIRE(e.submit(job("b-1", "b", tc.b_pods)).ok());
      const Decisions d = e.schedule(10);
      CHECK(admitted(d, "b-1") == tc.want_admitted);
    }
  }
}

TEST_CASE("a queue keeps less of its guarantee unlent as it uses it",
          "[queueing][quota][lending]") {
  // a is guaranteed 8, lends 2: it keeps 6 while idle. Running 4 of its own, it keeps 2:
  // b may take 16 - 4 - 2 = 10 of the cluster.
  Engine e = engineWith(rackOfNodes("n", 2, 2),
                        {queue("a").guaranteedGpus(8).lendingLimitGpus(2), queue("b")});
  REQUIRE(e.addRunning(runningOn(job("a-1", "a", 4).build(), {"n-0", "n-0", "n-0", "n-0"})).ok());
  REQUIRE(e.submit(job("b-big", "b", 11)).ok());
  REQUIRE(e.submit(job("b-fits", "b", 10)).ok());
  const Decisions d = e.schedule(10);
  CHECK(admitted(d, "b-fits"));
  CHECK_FALSE(admitted(d, "b-big"));
}

TEST_CASE("a limit held back by what others keep unlent says so", "[queueing][quota][lending]") {
  // org is limited to 12 on a 32-GPU cluster and a keeps 6 of its guarantee unlent. b runs 4
  // GPUs; 4 more would take org to 4 + 6 + 4 = 14 of 12. (8 more could never be admitted:
  // 6 + 8 > 12 even on an empty cluster.)
  Engine e = engineWith(
      rackOfNodes("n", 4, 4),
      {queue("org").limitGpus(12).guaranteedGpus(8),
       queue("a").parent("org").guaranteedGpus(8).lendingLimitGpus(2), queue("b").parent("org")});
  REQUIRE(e.addRunning(runningOn(job("b-0", "b", 4).build(), {"n-0", "n-0", "n-0", "n-0"})).ok());
  REQUIRE(e.submit(job("b-1", "b", 4)).ok());
  REQUIRE(e.submit(job("b-2", "b", 8)).ok());
  e.schedule(10);
  const auto x = e.explanation("b-1");
  REQUIRE(x);
  CHECK(x->reason == PendingReason::QueueAtLimit);
  CHECK(x->limit_queue == "org");
  CHECK(x->limit_kept == 6);
  CHECK_THAT(describe(*x),
             Catch::StartsWith("QueueAtLimit: org would hold 14 of its limit 12 nvidia.com/gpu "
                               "(holds 4, this job asks 4, queues under it keep 6 of their "
                               "guarantees unlent)"));
  CHECK(e.explanation("b-2")->reason == PendingReason::Inadmissible);
}

}  // namespace
}  // namespace troupe::queueing
