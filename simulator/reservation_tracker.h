#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace troupe::simulator {

// Follows the backfill reservations the engine holds for starving gangs, as its pending
// reasons tell them: a gang holds one from the cycle its reason becomes Reserved until
// the cycle it is admitted (or its reason changes). Counts them over simulated time.
class ReservationTracker {
 public:
  // Gang `job` of `gpus` GPUs holds a reservation from `now_s` (no-op if it already does).
  void hold(size_t job, int64_t gpus, int64_t now_s);
  // Gang `job` holds none from `now_s`; `started`: it was admitted. Returns how long it
  // held the reservation (0 if it held none).
  int64_t release(size_t job, int64_t now_s, bool started);
  // After every settled cycle: the count and GPUs held hold until the next call.
  void observe(int64_t now_s);
  void finish(int64_t end_s);

  int64_t reservationsMade() const { return made_; }
  int64_t reservationsStarted() const { return started_; }
  int64_t maxHeld() const { return max_held_; }
  // Time-averaged over the whole replay: reservations held, and the GPUs of their gangs.
  double averageHeld() const;
  double averageHeldGpus() const;
  // How long reservations were held (those still held at the end count to the end).
  double averageHoldSeconds() const;
  int64_t maxHoldSeconds() const;

 private:
  struct Held {
    int64_t gpus = 0;
    int64_t since_s = 0;
  };
  void closeInterval(int64_t until_s);
  int64_t endHold(const Held& held, int64_t now_s);

  std::unordered_map<size_t, Held> held_;
  int64_t held_gpus_ = 0;
  int64_t first_s_ = -1;
  int64_t last_s_ = -1;
  double held_integral_ = 0;
  double held_gpus_integral_ = 0;
  int64_t made_ = 0;
  int64_t started_ = 0;
  int64_t max_held_ = 0;
  int64_t ended_ = 0;
  double hold_seconds_ = 0;
  int64_t max_hold_s_ = 0;
};

}  // namespace troupe::simulator
