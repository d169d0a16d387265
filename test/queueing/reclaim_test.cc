// Lending and taking back: a queue's idle guarantee is lent to queues that want more, and
// is reclaimed when its owner comes back, even from a queue guaranteed nothing, and never
// takes a borrower below its own guarantee.
#include <catch2/catch.hpp>

#include "test/queueing/builders.h"
#include "test/queueing/scenario.h"

namespace troupe::queueing {
namespace {

using namespace testing;

struct BorrowedShape {
  int gangs = 0;  // gangs the borrowing queue runs, each `pods` x 8 GPUs
  int pods = 0;
};

struct LendingRow {
  const char* story;
  int nodes;  // 8 GPUs each, one rack
  std::vector<QueueSpec> queues;
  BorrowedShape borrowed;  // run by queue "default", guaranteed nothing
  const char* owner;       // the queue that comes back
  int owner_pods;          // its gang: owner_pods x 8 GPUs
  bool taken_back;
};

TEST_CASE("a borrower gives back the guarantee it borrowed, down to its own guarantee",
          "[queueing][preemption][reclaim]") {
  const std::vector<LendingRow> rows = {
      {"the borrower's only gang spans the owner's guarantee and more",
       2,
       {queue("default"), queue("a").guaranteedGpus(8)},
       {1, 2},
       "a",
       1,
       true},
      {"the owner wants half its guarantee; one of two large borrowed gangs goes",
       4,
       {queue("default"), queue("a").guaranteedGpus(16)},
       {2, 2},
       "a",
       1,
       true},
      {"the owner's guarantee comes through its parent",
       4,
       {queue("default"), queue("org").guaranteedGpus(16),
        queue("a").parent("org").guaranteedGpus(16)},
       {2, 2},
       "a",
       1,
       true},
      {"a queue guaranteed nothing may not push the borrower below itself",
       4,
       {queue("default"), queue("c")},
       {2, 2},
       "c",
       1,
       false},
      {"past its guarantee the owner may not push the borrower below itself",
       4,
       {queue("default"), queue("a").guaranteedGpus(4)},
       {2, 2},
       "a",
       1,
       false},
      // Fair shares: a 8 (its 4 and 4 of the idle rest), default 24. Losing a 16-GPU gang
      // leaves default at 16/24, below a's 8/8: allowed only while default keeps all of
      // its own guarantee.
      {"past its guarantee the owner may push below itself a borrower that keeps its own",
       4,
       {queue("default").guaranteedGpus(8), queue("a").guaranteedGpus(4)},
       {2, 2},
       "a",
       1,
       true},
      {"but not one that would drop below its own guarantee",
       4,
       {queue("default").guaranteedGpus(20), queue("a").guaranteedGpus(4)},
       {2, 2},
       "a",
       1,
       false},
  };
  for (const auto& row : rows) {
    DYNAMIC_SECTION(row.story) {
      Engine e = engineWith(rackOfNodes("n", row.nodes, row.nodes), row.queues);
      for (int i = 0; i < row.borrowed.gangs; ++i)
        REQUIRE(e.submit(gang("borrowed-" + std::to_string(i))
                             .queue("default")
                             .pods(row.borrowed.pods)
                             .gpus(8)
                             .submittedAt(0))
                    .ok());
      REQUIRE(e.schedule(10).admissions.size() == static_cast<std::size_t>(row.borrowed.gangs));
      REQUIRE(e.submit(gang("back").queue(row.owner).pods(row.owner_pods).gpus(8).submittedAt(20))
                  .ok());
      const Decisions d = e.schedule(30);
      if (auto x = e.explanation("back")) INFO(describe(*x));
      CHECK(admitted(d, "back") == row.taken_back);
      if (row.taken_back) {
        REQUIRE(d.preemptions.size() == 1);
        CHECK(d.preemptions[0].queue == "default");
        CHECK(d.preemptions[0].preemptor == "back");
        SECTION("and the borrower's evicted gang does not take it back") {
          for (Seconds t = 31; t < 40; ++t) CHECK(e.schedule(t).empty());
          CHECK(e.isRunning("back"));
        }
      } else {
        CHECK(d.preemptions.empty());
        CHECK(reasonOf(e, "back") == PendingReason::WaitingForReclaim);
      }
    }
  }
}

TEST_CASE("a queue that never borrows still takes back its guarantee",
          "[queueing][preemption][reclaim][weight]") {
  // Team a is guaranteed 8 GPUs and nothing else, with weight 0: it never takes
  // what a sibling with a weight wants. Its pods
  // also ask for CPU and memory, which nobody contends for. That CPU is idle capacity no
  // queue with a weight wants, so it is part of a's fair share, and holding it does not
  // put a above its share: a takes its 8 GPUs back from the borrower.
  Engine e = engineWith(rackOfNodes("n", 2, 2),
                        {queue("default"), queue("a").guaranteedGpus(8).weight(0)});
  for (int i = 0; i < 2; ++i)
    REQUIRE(e.submit(gang("borrowed-" + std::to_string(i)).gpus(8).submittedAt(0)).ok());
  REQUIRE(e.schedule(10).admissions.size() == 2);
  REQUIRE(e.submit(gang("back").queue("a").gpus(8).cpu(4000).submittedAt(20)).ok());
  const Decisions d = e.schedule(30);
  if (auto x = e.explanation("back")) INFO(describe(*x));
  CHECK(admitted(d, "back"));
  REQUIRE(d.preemptions.size() == 1);
  CHECK(d.preemptions[0].queue == "default");
  for (Seconds t = 31; t < 40; ++t) CHECK(e.schedule(t).empty());
  CHECK(e.isRunning("back"));
}

// Four 8-GPU nodes; the free GPUs are split 4 and 4, so a whole-node gang fits nowhere:
//   n-0: b-big (8)   n-1: a-1 (4) b-mid (4)   n-2: a-2 (4) free (4)   n-3: b-new (4) free (4)
// Team a wants one more 8-GPU gang. With a guaranteed 16 and b guaranteed 8 (both wanting
// 16), fair shares are 16 each: a holds 8, b 16, so no queue is above its fair share.
struct FragmentRow {
  const char* story;
  std::int64_t a_guarantee, b_guarantee;
  std::set<std::string> victims;  // empty: a's gang waits
};

TEST_CASE("a queue below its guarantee takes back borrowed work when free GPUs are fragmented",
          "[queueing][preemption][reclaim][fragmentation]") {
  const std::vector<FragmentRow> rows = {
      {"b holds more than its guarantee: its cheapest gang on the right node goes",
       16,
       8,
       {"b-new"}},
      {"b holds only its guarantee: nothing is taken", 16, 16, {}},
      {"a at its guarantee would end above it: it waits for free capacity", 8, 8, {}},
      // Gangs are indivisible: a, below its guarantee of 12, ends at 16/12 of it, which
      // b at 16/8 of its own is further above; b keeps its guarantee.
      {"a below its guarantee may end above it, taking from b further above its own",
       12,
       8,
       {"b-new"}},
      {"but not from b less far above its guarantee than a would end", 12, 14, {}},
  };
  for (const auto& row : rows) {
    DYNAMIC_SECTION(row.story) {
      Engine e = engineWith(rackOfNodes("n", 4, 4), {queue("a").guaranteedGpus(row.a_guarantee),
                                                     queue("b").guaranteedGpus(row.b_guarantee)});
      auto half = [](GangSpec spec, const std::string& node, Seconds started, int first_gpu) {
        RunningGang r = runningOn(std::move(spec), {node}, started);
        r.pods[0].gpus = {first_gpu, first_gpu + 1, first_gpu + 2, first_gpu + 3};
        return r;
      };
      REQUIRE(e.addRunning(runningOn(gang("b-big").queue("b").gpus(8), {"n-0"}, 0)).ok());
      REQUIRE(e.addRunning(half(gang("a-1").queue("a").gpus(4), "n-1", 0, 0)).ok());
      REQUIRE(e.addRunning(half(gang("b-mid").queue("b").gpus(4), "n-1", 10, 4)).ok());
      REQUIRE(e.addRunning(half(gang("a-2").queue("a").gpus(4), "n-2", 0, 0)).ok());
      REQUIRE(e.addRunning(half(gang("b-new").queue("b").gpus(4), "n-3", 50, 0)).ok());
      REQUIRE(e.submit(gang("a-3").queue("a").gpus(8).submittedAt(60)).ok());
      const Decisions d = e.schedule(100);
      if (auto x = e.explanation("a-3")) INFO(describe(*x));
      CHECK(preempted(d) == row.victims);
      CHECK(admitted(d, "a-3") == !row.victims.empty());
      if (!row.victims.empty()) {
        CHECK(admissionOf(d, "a-3")->pods[0].node == "n-3");
        SECTION("the evicted gang then fits the other free half, and nothing swings back") {
          const Decisions next = e.schedule(101);
          CHECK(next.preemptions.empty());
          REQUIRE(admitted(next, "b-new"));
          CHECK(admissionOf(next, "b-new")->pods[0].node == "n-2");
          for (Seconds t = 102; t < 110; ++t) CHECK(e.schedule(t).empty());
          CHECK(e.isRunning("a-3"));
        }
      }
    }
  }
}

}  // namespace
}  // namespace troupe::queueing
