#include <catch2/catch.hpp>

#include "cli/queue_tree.h"
#include "test/cli/objects.h"

using namespace troupe::cli;
using troupe::cli::testing::queue;

TEST_CASE("queues form a tree, children by name, orphans at the top", "[cli][queue-tree]") {
  std::vector<nlohmann::json> queues = {queue("team-b", "org", 8, 0), queue("org", "", 32, 0),
                                        queue("team-a", "org", 8, 0),
                                        queue("lost", "no-such-parent", 0, 0)};
  auto tree = queueTree(queues);
  std::vector<std::string> names;
  std::vector<int> depths;
  for (const auto& e : tree.order) {
    names.push_back(e.name);
    depths.push_back(e.depth);
  }
  CHECK(names == std::vector<std::string>{"lost", "org", "team-a", "team-b"});
  CHECK(depths == std::vector<int>{0, 0, 1, 1});
  CHECK(tree.order.back().last == std::vector<bool>{true, true});
}

TEST_CASE("who borrows from whom", "[cli][queue-tree][borrowing]") {
  struct Edge {
    std::string borrower, lender;
    double amount;
  };
  struct Case {
    std::string name;
    std::vector<nlohmann::json> queues;
    std::vector<Edge> want;
  };
  std::vector<Case> cases = {
      // a is 8 above its guarantee; b lends min(idle 12, lendingLimit 8) = 8, c its idle 8:
      // 16 idle, 8 wanted, split 8 * 8/16 = 4 and 4.
      {"borrowers take from every lender in proportion to what it has idle",
       {queue("org", "", 40, 28), queue("a", "org", 16, 24),
        queue("b", "org", 16, 4, {{"lendingLimit", "8"}}), queue("c", "org", 8, 0)},
       {{"a", "b", 4}, {"a", "c", 4}}},
      // a wants 8 more than its guarantee; b has only 2 idle: 6 come from org's own share.
      {"what siblings cannot lend comes from outside the family",
       {queue("org", "", 40, 38), queue("a", "org", 16, 24), queue("b", "org", 16, 14)},
       {{"a", "b", 2}, {"a", "", 6}}},
      {"nobody above its guarantee borrows nothing",
       {queue("a", "", 16, 16), queue("b", "", 16, 3)},
       {}},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto edges = borrowing(queueTree(tc.queues), "nvidia.com/gpu");
      REQUIRE(edges.size() == tc.want.size());
      for (std::size_t i = 0; i < edges.size(); ++i) {
        CHECK(edges[i].borrower == tc.want[i].borrower);
        CHECK(edges[i].lender == tc.want[i].lender);
        CHECK(edges[i].amount == Approx(tc.want[i].amount));
      }
    }
  }
}

TEST_CASE("a queue's numbers come from its spec and status", "[cli][queue-tree]") {
  auto q = queue("a", "", 16, 24, {{"limit", "24"}});
  q["status"]["fairShare"] = {{"nvidia.com/gpu", "20"}};
  auto gpu = quotaOf(q, "nvidia.com/gpu");
  CHECK(gpu.guaranteed == 16);
  CHECK(gpu.allocated == 24);
  CHECK(gpu.fair_share == 20);
  CHECK(gpu.limit == 24);
  auto cpu = quotaOf(q, "cpu");  // not listed: no guarantee, no limit of its own
  CHECK(cpu.guaranteed == 0);
  CHECK_FALSE(cpu.limit);
  CHECK(quantityValue("500m") == 0.5);
  CHECK(quantityValue("2Gi") == 2147483648.0);
  CHECK_FALSE(quantityValue("lots"));
}
