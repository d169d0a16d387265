#include "simulator/idle_causes.h"

#include <algorithm>
#include <numeric>
#include <queue>

#include "common/check.h"

namespace troupe::simulator {
namespace {

using queueing::PendingReason;

// Why a gang that fits in the free GPUs waits.
IdleCause causeOf(std::optional<PendingReason> reason, bool reservation_held, bool evictions) {
  if (!reason) return IdleCause::Unexplained;
  switch (*reason) {
    case PendingReason::QueueAtLimit: return IdleCause::Quota;
    case PendingReason::BlockedByQueueHead: return IdleCause::QueueHead;
    case PendingReason::Preempted: return IdleCause::Evicted;
    case PendingReason::BlockedByStarvingJob:
    case PendingReason::Reserved: return IdleCause::Reservation;
    case PendingReason::NoPlacement:
    case PendingReason::OverFairShare:
    case PendingReason::WaitingForReclaim:
      // These say the gang found no room where it may go. It fits in the free GPUs, so
      // the room it was refused is reserved, if anything is; else it was examined before
      // an eviction of the same cycle freed the room (a cycle walks each queue once).
      if (reservation_held) return IdleCause::Reservation;
      return evictions ? IdleCause::Evicted : IdleCause::Unexplained;
    default: return IdleCause::Unexplained;
  }
}

// Where a gang's pods go in `free` (one node per pod), or nothing when it does not fit.
class FirstFit {
 public:
  FirstFit(std::vector<int> free, const std::vector<int>& rack)
      : free_(std::move(free)), rack_(rack) {
    for (int r : rack_) racks_ = std::max(racks_, r + 1);
  }

  int64_t left() const { return std::accumulate(free_.begin(), free_.end(), int64_t{0}); }

  // Takes the GPUs of one gang of `shape` if it fits; false otherwise.
  bool take(const WaitingShape& shape) {
    std::vector<size_t> nodes;
    for (size_t n = 0; n < free_.size(); ++n)
      if (free_[n] >= shape.gpus_per_pod) nodes.push_back(n);
    std::sort(nodes.begin(), nodes.end(), [&](size_t a, size_t b) {
      return free_[a] != free_[b] ? free_[a] < free_[b] : a < b;
    });
    if (shape.one_rack) {
      // The rack that holds the gang with the fewest pods to spare, ties by number.
      std::vector<int64_t> slots(static_cast<size_t>(racks_), 0);
      for (size_t n : nodes) slots[static_cast<size_t>(rack_[n])] += free_[n] / shape.gpus_per_pod;
      int best = -1;
      for (int r = 0; r < racks_; ++r) {
        const int64_t s = slots[static_cast<size_t>(r)];
        if (s >= shape.pods && (best < 0 || s < slots[static_cast<size_t>(best)])) best = r;
      }
      if (best < 0) return false;
      std::erase_if(nodes, [&](size_t n) { return rack_[n] != best; });
    }
    int64_t slots = 0;
    for (size_t n : nodes) slots += free_[n] / shape.gpus_per_pod;
    if (slots < shape.pods) return false;
    int want = shape.pods;
    for (size_t n : nodes) {
      for (; want > 0 && free_[n] >= shape.gpus_per_pod; --want) free_[n] -= shape.gpus_per_pod;
      if (want == 0) break;
    }
    TROUPE_CHECK(want == 0, "first fit: {} pods of {} GPUs left to place", want,
                 shape.gpus_per_pod);
    return true;
  }

 private:
  std::vector<int> free_;
  const std::vector<int>& rack_;
  int racks_ = 0;
};

}  // namespace

const char* idleCauseName(IdleCause cause) {
  switch (cause) {
    case IdleCause::Reservation: return "reservation";
    case IdleCause::Fragmentation: return "fragmentation";
    case IdleCause::Quota: return "quota";
    case IdleCause::QueueHead: return "queue_head";
    case IdleCause::Evicted: return "evicted";
    case IdleCause::Unexplained: return "unexplained";
  }
  return "unexplained";
}

IdleSplit splitIdleGpus(const std::vector<int>& free, const std::vector<int>& rack,
                        WaitingGangs& waiting, bool reservation_held, bool evictions) {
  TROUPE_CHECK(free.size() == rack.size(), "splitIdleGpus: {} nodes free, {} racked", free.size(),
               rack.size());
  IdleSplit split{};
  FirstFit fit(free, rack);
  int64_t left = fit.left();
  if (left == 0) return split;
  // The next gang of every shape still in the pass, earliest submitted on top.
  struct Head {
    WaitingGang gang;
    size_t shape;
    bool operator>(const Head& o) const {
      return gang.order != o.gang.order ? gang.order > o.gang.order : shape > o.shape;
    }
  };
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
  for (size_t s = 0; s < waiting.shapeCount(); ++s)
    if (auto g = waiting.next(s)) heads.push({*g, s});
  while (left > 0 && !heads.empty()) {
    const Head head = heads.top();
    heads.pop();
    const WaitingShape shape = waiting.shape(head.shape);
    const int64_t gpus = int64_t{shape.pods} * shape.gpus_per_pod;
    if (gpus > left || !fit.take(shape)) continue;  // the shape leaves the pass
    left -= gpus;
    split[static_cast<size_t>(causeOf(head.gang.reason, reservation_held, evictions))] += gpus;
    if (auto g = waiting.next(head.shape)) heads.push({*g, head.shape});
  }
  split[static_cast<size_t>(IdleCause::Fragmentation)] += left;
  return split;
}

void IdleCauseTracker::closeInterval(int64_t until_s) {
  if (last_s_ < 0 || until_s <= last_s_ || !waiting_) return;
  const auto span = static_cast<double>(until_s - last_s_);
  waiting_s_ += until_s - last_s_;
  idle_gpu_s_ += static_cast<double>(free_) * span;
  for (size_t c = 0; c < kIdleCauses; ++c) by_cause_[c] += static_cast<double>(split_[c]) * span;
}

void IdleCauseTracker::observe(int64_t now_s, bool someone_waits, int64_t free_gpus,
                               const IdleSplit& split) {
  TROUPE_CHECK(now_s >= last_s_, "IdleCauseTracker: time went back from {} to {}", last_s_, now_s);
  closeInterval(now_s);
  last_s_ = now_s;
  waiting_ = someone_waits;
  free_ = free_gpus;
  split_ = someone_waits ? split : IdleSplit{};
  if (someone_waits) {
    const int64_t parts = std::accumulate(split_.begin(), split_.end(), int64_t{0});
    TROUPE_CHECK(parts == free_gpus, "IdleCauseTracker: the causes add up to {} of {} free GPUs",
                 parts, free_gpus);
  }
}

void IdleCauseTracker::finish(int64_t end_s) {
  closeInterval(end_s);
  last_s_ = std::max(last_s_, end_s);
}

}  // namespace troupe::simulator
