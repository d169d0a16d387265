#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "queueing/decisions.h"

// Idle GPUs while gangs wait, split by why they are idle (docs/simulator.md, "Idle GPUs
// while gangs wait"). The split is read from the engine's pending reasons and the free
// GPUs of each node, not from the engine's internals.
namespace troupe::simulator {

enum class IdleCause : uint8_t {
  // A waiting gang fits in the free GPUs but the engine holds them for a starving gang
  // (a backfill reservation): its reason is BlockedByStarvingJob or Reserved, or another
  // capacity reason while some gang holds a reservation (the reservation is then the only
  // rule that keeps a gang that fits from starting).
  Reservation,
  // No waiting gang fits where the free GPUs are: too few on one node for a pod, or too
  // few pods' worth in all (or in one rack for a gang that requires one).
  Fragmentation,
  // A waiting gang fits, but its queue (or an ancestor) would pass its limit.
  Quota,
  // A waiting gang fits, but waits behind an earlier one that does not (FIFO).
  QueueHead,
  // The cycle evicted gangs, and a waiting gang fits that was evicted in it, or that the
  // engine examined before the evictions freed the GPUs it fits in: the engine tries it
  // again in the next cycle, which the replay runs at its next event.
  Evicted,
  // A waiting gang fits and none of the above explains why it waits.
  Unexplained,
};
inline constexpr size_t kIdleCauses = 6;

// "reservation", "fragmentation", "quota", "queue_head", "evicted", "unexplained".
const char* idleCauseName(IdleCause cause);

// What the split needs of a waiting gang's shape: identical pods, and whether its
// topology requires all of them in one rack.
struct WaitingShape {
  int pods = 0;
  int gpus_per_pod = 0;
  bool one_rack = false;
  friend bool operator==(const WaitingShape&, const WaitingShape&) = default;
  friend auto operator<=>(const WaitingShape&, const WaitingShape&) = default;
};

// A waiting gang: its place in submit order (any increasing key) and the engine's reason.
struct WaitingGang {
  uint64_t order = 0;
  // Unset while the engine has given none: counted as Unexplained if it fits.
  std::optional<queueing::PendingReason> reason;
};

// The waiting gangs, grouped by shape, each group in submit order.
class WaitingGangs {
 public:
  virtual ~WaitingGangs() = default;
  virtual size_t shapeCount() const = 0;
  virtual WaitingShape shape(size_t s) const = 0;
  // The next gang of shape `s` after the ones already given, or nothing at the end.
  virtual std::optional<WaitingGang> next(size_t s) = 0;
};

// Free GPUs split by cause; the parts add up to the free GPUs.
using IdleSplit = std::array<int64_t, kIdleCauses>;

// Splits the free GPUs of one settled moment. A first-fit pass over the waiting gangs in
// submit order places each gang that fits in what is left free, ignoring reservations,
// quotas and order (pods on the nodes with the fewest free GPUs that hold one, within the
// one rack that holds the gang with the fewest spare pods when it requires a rack), and
// counts the GPUs it takes under the cause that kept it waiting; the GPUs left over when
// no further gang fits are Fragmentation. Free capacity only shrinks during the pass, so
// once a gang of a shape does not fit, no later gang of that shape is looked at: the pass
// costs the gangs that fit plus one per shape. `free[n]` and `rack[n]` are per node;
// racks are numbered from 0.
// `reservation_held`: some waiting gang's reason is Reserved; `evictions`: the cycle
// evicted gangs.
IdleSplit splitIdleGpus(const std::vector<int>& free, const std::vector<int>& rack,
                        WaitingGangs& waiting, bool reservation_held, bool evictions);

// The split integrated over simulated time: observe() after every settled cycle, with
// whether any gang waits; a moment's split holds until the next observe().
class IdleCauseTracker {
 public:
  // `split` is ignored when nothing waits.
  void observe(int64_t now_s, bool someone_waits, int64_t free_gpus, const IdleSplit& split);
  void finish(int64_t end_s);

  // GPU-seconds idle while some gang waited, in all and per cause.
  double idleGpuSeconds() const { return idle_gpu_s_; }
  double gpuSeconds(IdleCause cause) const { return by_cause_[static_cast<size_t>(cause)]; }
  // Seconds during which some gang waited.
  int64_t waitingSeconds() const { return waiting_s_; }

 private:
  void closeInterval(int64_t until_s);

  int64_t last_s_ = -1;
  bool waiting_ = false;
  int64_t free_ = 0;
  IdleSplit split_{};
  double idle_gpu_s_ = 0;
  std::array<double, kIdleCauses> by_cause_{};
  int64_t waiting_s_ = 0;
};

}  // namespace troupe::simulator
