#include "simulator/reservation_tracker.h"

#include <algorithm>

#include "common/check.h"

namespace troupe::simulator {

void ReservationTracker::hold(size_t job, int64_t gpus, int64_t now_s) {
  if (!held_.emplace(job, Held{gpus, now_s}).second) return;
  held_gpus_ += gpus;
  ++made_;
}

int64_t ReservationTracker::endHold(const Held& held, int64_t now_s) {
  const int64_t span = now_s - held.since_s;
  ++ended_;
  hold_seconds_ += static_cast<double>(span);
  max_hold_s_ = std::max(max_hold_s_, span);
  return span;
}

int64_t ReservationTracker::release(size_t job, int64_t now_s, bool started) {
  auto it = held_.find(job);
  if (it == held_.end()) return 0;
  const int64_t span = endHold(it->second, now_s);
  held_gpus_ -= it->second.gpus;
  if (started) ++started_;
  held_.erase(it);
  return span;
}

void ReservationTracker::closeInterval(int64_t until_s) {
  if (last_s_ < 0 || until_s <= last_s_) return;
  const auto span = static_cast<double>(until_s - last_s_);
  held_integral_ += static_cast<double>(held_.size()) * span;
  held_gpus_integral_ += static_cast<double>(held_gpus_) * span;
}

void ReservationTracker::observe(int64_t now_s) {
  TROUPE_CHECK(now_s >= last_s_, "ReservationTracker: time went back from {} to {}", last_s_,
               now_s);
  closeInterval(now_s);
  if (first_s_ < 0) first_s_ = now_s;
  last_s_ = now_s;
  max_held_ = std::max(max_held_, static_cast<int64_t>(held_.size()));
}

void ReservationTracker::finish(int64_t end_s) {
  closeInterval(end_s);
  last_s_ = std::max(last_s_, end_s);
  // Reservations still held at the end count as held until then.
  for (const auto& [job, held] : held_) endHold(held, last_s_);
  held_.clear();
  held_gpus_ = 0;
}

double ReservationTracker::averageHeld() const {
  const int64_t span = last_s_ - first_s_;
  return span > 0 ? held_integral_ / static_cast<double>(span) : 0.0;
}

double ReservationTracker::averageHeldGpus() const {
  const int64_t span = last_s_ - first_s_;
  return span > 0 ? held_gpus_integral_ / static_cast<double>(span) : 0.0;
}

double ReservationTracker::averageHoldSeconds() const {
  return ended_ > 0 ? hold_seconds_ / static_cast<double>(ended_) : 0.0;
}

int64_t ReservationTracker::maxHoldSeconds() const { return max_hold_s_; }

}  // namespace troupe::simulator
