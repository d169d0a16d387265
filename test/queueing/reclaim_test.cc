// Lending and taking back: a queue's idle guarantee is lent to queues that want more, and
// is reclaimed when its owner comes back, even from a queue guaranteed nothing.
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

TEST_CASE("a queue guaranteed nothing gives back the guarantee it borrowed",
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

}  // namespace
}  // namespace troupe::queueing
