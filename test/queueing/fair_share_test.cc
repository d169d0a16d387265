#include <catch2/catch.hpp>

#include <limits>

#include "queueing/fair_share.h"
#include "queueing/usage.h"
#include "test/queueing/builders.h"
#include "test/queueing/scenario.h"

namespace troupe::queueing {
namespace {

using namespace testing;

constexpr std::int64_t kInf = ResourceVector::kUnlimited;

FairShareQueue fsq(int parent, std::int64_t guaranteed, std::int64_t demand,
                   std::int64_t weight = 1, std::int64_t limit = kInf,
                   std::int64_t lending_limit = kInf) {
  FairShareQueue q;
  q.parent = parent;
  q.guaranteed = gpus(guaranteed);
  q.demand = gpus(demand);
  q.over_quota_weight = weight;
  q.limit = ResourceVector::filled(kInf);
  q.limit[kGpu] = limit;
  q.lending_limit = ResourceVector::filled(kInf);
  q.lending_limit[kGpu] = lending_limit;
  return q;
}

// The worked example of docs/fair-share.md.
TEST_CASE("fair share: the worked example of the docs", "[queueing][fair-share]") {
  // 0 research (g32)      1 prod (g16, weight 3, limit 24)      2 sandbox (g0)
  // 3 nlp (g16, wants 40) 4 vision (g16, wants 4)               5 serving (g16, wants 40)
  // sandbox wants 64. Capacity 64 GPUs.
  std::vector<FairShareQueue> tree = {
      fsq(-1, 32, 0), fsq(-1, 16, 0, 3, 24), fsq(-1, 0, 64),
      fsq(0, 16, 40), fsq(0, 16, 4),         fsq(1, 16, 40),
  };
  SECTION("unlimited lending") {
    const auto share = computeFairShares(tree, gpus(64));
    // Top: guaranteed min(32, 44) + min(16, 24) + 0 = 48; pool 16 by weight 1:3:1;
    // prod is full at +8 (24 = its limit), the last 8 go 4 and 4: 36, 24, 4.
    CHECK(share[0][kGpu] == 36);
    CHECK(share[1][kGpu] == 24);
    CHECK(share[2][kGpu] == 4);
    // research's 36: nlp 16 + vision 4 guaranteed, vision lends its unused 12, the pool
    // of 16 goes to nlp: 32 and 4. prod's 24 all go to serving.
    CHECK(share[3][kGpu] == 32);
    CHECK(share[4][kGpu] == 4);
    CHECK(share[5][kGpu] == 24);
  }
  SECTION("vision lends at most 4 of its guaranteed") {
    tree[4].lending_limit[kGpu] = 4;
    const auto share = computeFairShares(tree, gpus(64));
    // vision's unused 12, of which 8 stay idle for it: nlp gets 16 + (36 - 20 - 8) = 24.
    CHECK(share[3][kGpu] == 24);
    CHECK(share[4][kGpu] == 4);
  }
}

TEST_CASE("fair share: idle capacity goes only to queues with demand, never past it",
          "[queueing][fair-share]") {
  std::vector<FairShareQueue> tree = {fsq(-1, 10, 2), fsq(-1, 10, 100), fsq(-1, 0, 0)};
  const auto share = computeFairShares(tree, gpus(40));
  // a wants 2 (< its 10), c wants nothing: b gets 10 + everything left, 40 - 2 = 38.
  CHECK(share[0][kGpu] == 2);
  CHECK(share[1][kGpu] == 38);
  CHECK(share[2][kGpu] == 0);
}

TEST_CASE("fair share: weight zero never takes what a weighted sibling wants",
          "[queueing][fair-share]") {
  std::vector<FairShareQueue> tree = {fsq(-1, 8, 100, 0), fsq(-1, 8, 100, 1)};
  const auto share = computeFairShares(tree, gpus(32));
  // Both get 8; the 16 left go to the weight-1 queue alone.
  CHECK(share[0][kGpu] == 8);
  CHECK(share[1][kGpu] == 24);
}

TEST_CASE("fair share: weight zero gets only what no sibling with a weight wants",
          "[queueing][fair-share]") {
  // 32 GPUs, both guaranteed 8. The weight-1 queue wants 12 and gets them; the 12 GPUs no
  // weighted sibling wants go to the weight-0 queue.
  std::vector<FairShareQueue> tree = {fsq(-1, 8, 100, 0), fsq(-1, 8, 12, 1)};
  const auto share = computeFairShares(tree, gpus(32));
  CHECK(share[1][kGpu] == 12);
  CHECK(share[0][kGpu] == 20);
  // Two weight-0 queues share such capacity equally: 32 - 8 - 12 = 12 left, 6 and 6 more.
  tree.push_back(fsq(-1, 0, 100, 0));
  const auto three = computeFairShares(tree, gpus(32));
  CHECK(three[1][kGpu] == 12);
  CHECK(three[0][kGpu] == 14);
  CHECK(three[2][kGpu] == 6);
}

TEST_CASE("fair share: guarantees larger than the cluster are scaled down",
          "[queueing][fair-share]") {
  std::vector<FairShareQueue> tree = {fsq(-1, 30, 30), fsq(-1, 10, 10)};
  const auto share = computeFairShares(tree, gpus(20));
  // 40 guaranteed on 20 GPUs: 30/40 * 20 = 15 and 10/40 * 20 = 5.
  CHECK(share[0][kGpu] == 15);
  CHECK(share[1][kGpu] == 5);
}

TEST_CASE("fair share: DRF across resources equalises dominant shares",
          "[queueing][fair-share][drf]") {
  // The DRF paper's example: 9 CPUs, 18 GiB. a's tasks are <1 CPU, 4 GiB> (memory
  // dominant), b's <3 CPU, 1 GiB> (CPU dominant), both want 9 tasks.
  FairShareQueue a, b;
  a.demand = ResourceVector::of(0, 9000, 36 * kGiB);
  b.demand = ResourceVector::of(0, 27000, 9 * kGiB);
  for (auto* q : {&a, &b}) {
    q->limit = ResourceVector::filled(kInf);
    q->lending_limit = ResourceVector::filled(kInf);
  }
  const auto share = computeFairShares({a, b}, ResourceVector::of(0, 9000, 18 * kGiB));
  // Equal dominant shares: 4x/18 = 3y/9 with x + 3y <= 9 CPUs: y = 2 tasks, x = 3.
  // a: 3 CPU, 12 GiB (2/3 of memory); b: 6 CPU, 2 GiB (2/3 of CPU). CPU is gone; the
  // 18 - 14 = 4 GiB nobody can use with it are split by weight: 2 GiB more each.
  CHECK(share[0][kCpu] == Approx(3000).margin(1));
  CHECK(share[0][kMemory] == Approx(14.0 * kGiB).epsilon(1e-6));
  CHECK(share[1][kCpu] == Approx(6000).margin(1));
  CHECK(share[1][kMemory] == Approx(4.0 * kGiB).epsilon(1e-6));
}

TEST_CASE("fair share: a resource left over when another runs out still goes to who wants it",
          "[queueing][fair-share][drf]") {
  // 16 GPUs, 128 CPUs. Both queues are guaranteed 8 GPUs and no CPU; a wants 16 GPUs and 2
  // CPUs, b 8 GPUs and 1 CPU. The GPU pool is empty after the guarantees, so DRF moves
  // nobody; the CPUs nobody contends for still go to their wanters: 2 and 1.
  FairShareQueue a = fsq(-1, 8, 16), b = fsq(-1, 8, 8);
  a.demand[kCpu] = 2000;
  b.demand[kCpu] = 1000;
  const auto share = computeFairShares({a, b}, ResourceVector::of(16, 128000, 0));
  CHECK(share[0][kGpu] == 8);
  CHECK(share[0][kCpu] == 2000);
  CHECK(share[1][kCpu] == 1000);
}

TEST_CASE("decayed usage halves every half-life once a queue stops running",
          "[queueing][fair-share][usage]") {
  // 64 GPUs of usage, nothing allocated, one half-life: 32; two: 16.
  CHECK(advanceUsage(gpus(64), gpus(0), 3600, 3600)[kGpu] == 32);
  CHECK(advanceUsage(gpus(64), gpus(0), 7200, 3600)[kGpu] == 16);
  // Holding 64 from zero usage for one half-life: 64 + (0 - 64) / 2 = 32.
  CHECK(advanceUsage(gpus(0), gpus(64), 3600, 3600)[kGpu] == 32);
  // No elapsed time: unchanged. No half-life: no memory.
  CHECK(advanceUsage(gpus(10), gpus(64), 0, 3600)[kGpu] == 10);
  CHECK(advanceUsage(gpus(10), gpus(64), 5, 0)[kGpu] == 64);
}

TEST_CASE("a team that just ran a lot waits behind one that did not",
          "[queueing][fair-share][usage]") {
  // Two equal queues; heavy ran 64 GPUs until recently (decayed usage 48), light ran
  // nothing. One 8-GPU node: whoever goes first takes it. Order keys (w = 0.5):
  // heavy 0.5 * 48 / 4 = 6, light 0. light goes first.
  Engine e = engineWith({node("n1").gpus(8)}, {queue("heavy").guaranteedGpus(4).usageGpus(48),
                                               queue("light").guaranteedGpus(4)});
  REQUIRE(e.submit(gang("h").queue("heavy").pods(1).gpus(8).submittedAt(0)).ok());
  REQUIRE(e.submit(gang("l").queue("light").pods(1).gpus(8).submittedAt(50)).ok());
  const Decisions d = e.schedule(100);
  CHECK(admitted(d, "l"));
  CHECK_FALSE(admitted(d, "h"));
}

TEST_CASE("queues furthest below their fair share go first", "[queueing][fair-share][order]") {
  // a holds 8 of fair share 16 (0.5), b holds 0 of 16 (0). One free node of 8: b first.
  Engine e =
      engineWith({node("n1").gpus(8), node("n2").gpus(8), node("n3").gpus(8), node("n4").gpus(8)},
                 {queue("a").guaranteedGpus(16), queue("b").guaranteedGpus(16)});
  REQUIRE(e.addRunning(runningOn(gang("a-old").queue("a").pods(1).gpus(8), {"n1"})).ok());
  REQUIRE(e.addRunning(runningOn(gang("b-old").queue("b").pods(1).gpus(8), {"n2"})).ok());
  REQUIRE(e.addRunning(runningOn(gang("a-two").queue("a").pods(1).gpus(8), {"n3"})).ok());
  REQUIRE(e.submit(gang("a-new").queue("a").pods(1).gpus(8).submittedAt(1)).ok());
  REQUIRE(e.submit(gang("b-new").queue("b").pods(1).gpus(8).submittedAt(2)).ok());
  const Decisions d = e.schedule(10);
  // a holds 16 (share 16/16 = 1), b holds 8 (8/16 = .5): b-new takes n4.
  CHECK(admitted(d, "b-new"));
  CHECK_FALSE(admitted(d, "a-new"));
}

}  // namespace
}  // namespace troupe::queueing

namespace troupe::queueing {
namespace {

TEST_CASE("guarantee share: compared on the resources the guarantee names",
          "[queueing][fair-share]") {
  const double inf = std::numeric_limits<double>::infinity();
  struct Row {
    const char* story;
    ResourceVector allocated, guaranteed;
    double share;
  };
  const std::vector<Row> rows = {
      {"holds half its GPUs, and CPU it was never guaranteed", ResourceVector::of(8, 4000, 0),
       ResourceVector::of(16, 0, 0), 0.5},
      {"holds all it is guaranteed", ResourceVector::of(16, 0, 0), ResourceVector::of(16, 0, 0),
       1.0},
      {"the most held resource counts", ResourceVector::of(8, 3000, 0),
       ResourceVector::of(16, 2000, 0), 1.5},
      {"guaranteed nothing and holding nothing", ResourceVector{}, ResourceVector{}, 0.0},
      {"guaranteed nothing: all it holds is borrowed", ResourceVector::of(1, 0, 0),
       ResourceVector{}, inf},
  };
  for (const auto& row : rows) {
    INFO(row.story);
    CHECK(guaranteeShare(row.allocated, row.guaranteed) == row.share);
  }
}

}  // namespace
}  // namespace troupe::queueing
