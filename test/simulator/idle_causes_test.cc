#include "simulator/idle_causes.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

namespace troupe::simulator {
namespace {

using queueing::PendingReason;

// A waiting gang for the tables below: its shape and reason.
struct Gang {
  WaitingShape shape;
  std::optional<PendingReason> reason;
};

Gang gang(int pods, int gpus_per_pod, PendingReason reason, bool one_rack = false) {
  return Gang{{pods, gpus_per_pod, one_rack}, reason};
}

// Gangs listed in submit order, served grouped by shape.
class ListedGangs final : public WaitingGangs {
 public:
  explicit ListedGangs(const std::vector<Gang>& gangs) {
    for (size_t i = 0; i < gangs.size(); ++i) {
      auto it = std::find(shapes_.begin(), shapes_.end(), gangs[i].shape);
      const auto s = static_cast<size_t>(it - shapes_.begin());
      if (it == shapes_.end()) {
        shapes_.push_back(gangs[i].shape);
        queues_.emplace_back();
      }
      queues_[s].push_back(WaitingGang{i, gangs[i].reason});
    }
    at_.assign(shapes_.size(), 0);
  }
  size_t shapeCount() const override { return shapes_.size(); }
  WaitingShape shape(size_t s) const override { return shapes_[s]; }
  std::optional<WaitingGang> next(size_t s) override {
    if (at_[s] == queues_[s].size()) return std::nullopt;
    return queues_[s][at_[s]++];
  }

 private:
  std::vector<WaitingShape> shapes_;
  std::vector<std::vector<WaitingGang>> queues_;
  std::vector<size_t> at_;
};

IdleSplit split(const std::vector<int>& free, const std::vector<int>& rack,
                const std::vector<Gang>& waiting, bool reservation_held, bool evictions = false) {
  ListedGangs gangs(waiting);
  return splitIdleGpus(free, rack, gangs, reservation_held, evictions);
}

TEST_CASE("free GPUs are split by what keeps the waiting gangs that fit there waiting",
          "[simulator][idle]") {
  struct Case {
    std::string name;
    std::vector<int> free;
    std::vector<int> rack;
    std::vector<Gang> waiting;
    bool reservation_held;
    IdleSplit want;  // reservation, fragmentation, quota, queue_head, evicted, unexplained
    bool evictions = false;
  };
  std::vector<Case> cases = {
      // 3 + 3 free; the only waiting gang needs 4 on one node.
      {"pods too big for any node's free GPUs",
       {3, 3},
       {0, 0},
       {gang(1, 4, PendingReason::NoPlacement)},
       false,
       {0, 6, 0, 0, 0, 0}},
      // 8 free on one node held for a 32-GPU gang; 8 one-GPU gangs told
      // BlockedByStarvingJob would fill it, the 32-GPU gang itself fits nowhere.
      {"a node drained for a starving gang",
       {8, 0, 0, 0},
       {0, 0, 0, 0},
       {gang(4, 8, PendingReason::Reserved), gang(1, 1, PendingReason::BlockedByStarvingJob),
        gang(1, 1, PendingReason::BlockedByStarvingJob),
        gang(1, 1, PendingReason::BlockedByStarvingJob),
        gang(1, 1, PendingReason::BlockedByStarvingJob),
        gang(1, 1, PendingReason::BlockedByStarvingJob),
        gang(1, 1, PendingReason::BlockedByStarvingJob),
        gang(1, 1, PendingReason::BlockedByStarvingJob),
        gang(1, 1, PendingReason::BlockedByStarvingJob)},
       true,
       {8, 0, 0, 0, 0, 0}},
      // The same gang told OverFairShare: with a reservation held, only the reservation
      // can keep a gang that fits from starting.
      {"another capacity reason while a reservation is held",
       {2},
       {0},
       {gang(1, 2, PendingReason::OverFairShare)},
       true,
       {2, 0, 0, 0, 0, 0}},
      {"no reservation, and nothing explains why it waits",
       {2},
       {0},
       {gang(1, 2, PendingReason::NoPlacement)},
       false,
       {0, 0, 0, 0, 0, 2}},
      // The same gang after a cycle that evicted gangs: it was examined before the
      // evictions freed the GPUs it fits in, and is tried again next cycle.
      {"no reservation, GPUs freed by an eviction later in the cycle",
       {2},
       {0},
       {gang(1, 2, PendingReason::OverFairShare)},
       false,
       {0, 0, 0, 0, 2, 0},
       true},
      {"a gang without a reason yet",
       {2},
       {0},
       {Gang{{1, 2, false}, std::nullopt}},
       false,
       {0, 0, 0, 0, 0, 2}},
      // 6 free: the 4-GPU gang at its limit takes 4, the 1-GPU evicted one 1, 1 is left.
      {"a limit and an eviction",
       {6},
       {0},
       {gang(1, 4, PendingReason::QueueAtLimit), gang(1, 1, PendingReason::Preempted)},
       false,
       {0, 1, 4, 0, 1, 0}},
      // FIFO: the 16-GPU head does not fit 8 + 4 free; the 4 and 8 behind it would.
      {"gangs behind a FIFO head",
       {8, 4},
       {0, 0},
       {gang(2, 8, PendingReason::NoPlacement), gang(1, 4, PendingReason::BlockedByQueueHead),
        gang(1, 8, PendingReason::BlockedByQueueHead)},
       false,
       {0, 0, 0, 12, 0, 0}},
      // 8 free in each of two racks: a 2 x 8 gang that requires one rack fits in neither.
      {"a gang that requires one rack",
       {8, 8},
       {0, 1},
       {gang(2, 8, PendingReason::NoPlacement, true)},
       false,
       {0, 16, 0, 0, 0, 0}},
      {"the same gang without the rack rule",
       {8, 8},
       {0, 1},
       {gang(2, 8, PendingReason::QueueAtLimit)},
       false,
       {0, 0, 16, 0, 0, 0}},
      // Pods go where the fewest GPUs are free: the 2-GPU pod takes node 1 (2 free), and
      // the 6-GPU pod still finds node 0's 6.
      {"packing leaves room for bigger pods",
       {6, 2},
       {0, 0},
       {gang(1, 2, PendingReason::QueueAtLimit), gang(1, 6, PendingReason::QueueAtLimit)},
       false,
       {0, 0, 8, 0, 0, 0}},
      {"nothing free",
       {0, 0},
       {0, 0},
       {gang(1, 1, PendingReason::NoPlacement)},
       false,
       {0, 0, 0, 0, 0, 0}},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      const IdleSplit got = split(tc.free, tc.rack, tc.waiting, tc.reservation_held, tc.evictions);
      for (size_t c = 0; c < kIdleCauses; ++c) {
        INFO(idleCauseName(static_cast<IdleCause>(c)));
        CHECK(got[c] == tc.want[c]);
      }
    }
  }
}

TEST_CASE("the causes always add up to the free GPUs", "[simulator][idle]") {
  const PendingReason reasons[] = {PendingReason::NoPlacement,          PendingReason::Reserved,
                                   PendingReason::BlockedByStarvingJob, PendingReason::QueueAtLimit,
                                   PendingReason::BlockedByQueueHead,   PendingReason::Preempted};
  const int pod_gpus[] = {1, 2, 4, 8};
  uint64_t x = 7;
  auto next = [&x](uint64_t n) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int>((x >> 33) % n);
  };
  for (int round = 0; round < 200; ++round) {
    std::vector<int> free, rack;
    for (int n = 0; n < 12; ++n) {
      free.push_back(next(9));
      rack.push_back(n / 4);
    }
    std::vector<Gang> waiting;
    for (int g = next(20); g > 0; --g)
      waiting.push_back(gang(1 + next(4), pod_gpus[next(4)], reasons[next(6)], next(2) == 0));
    const IdleSplit got = split(free, rack, waiting, next(2) == 0);
    INFO("round " << round);
    CHECK(std::accumulate(got.begin(), got.end(), int64_t{0}) ==
          std::accumulate(free.begin(), free.end(), int64_t{0}));
  }
}

TEST_CASE("idle GPUs count only while some gang waits", "[simulator][idle]") {
  IdleCauseTracker idle;
  // [0,10): 4 free, a gang waits, all fragmentation.
  idle.observe(0, true, 4, {0, 4, 0, 0, 0, 0});
  // [10,30): 6 free, nothing waits: not counted.
  idle.observe(10, false, 6, {});
  // [30,40): 2 free held by a reservation.
  idle.observe(30, true, 2, {2, 0, 0, 0, 0, 0});
  idle.finish(40);
  // 4 * 10 + 2 * 10 = 60 GPU-s, 40 of fragmentation and 20 reserved, over 20 s of waiting.
  CHECK(idle.idleGpuSeconds() == Approx(60));
  CHECK(idle.gpuSeconds(IdleCause::Fragmentation) == Approx(40));
  CHECK(idle.gpuSeconds(IdleCause::Reservation) == Approx(20));
  CHECK(idle.waitingSeconds() == 20);
}

}  // namespace
}  // namespace troupe::simulator
