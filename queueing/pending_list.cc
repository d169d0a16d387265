#include "queueing/pending_list.h"

#include <algorithm>

#include "common/check.h"
#include "queueing/gang_state.h"
#include "queueing/name_key.h"

namespace troupe::queueing {
namespace {

// Dead entries are dropped together once there are more of them than this and than live
// ones: a walk skips them meanwhile, and admissions from the queue's front stay O(log n).
constexpr std::size_t kCompactAfter = 64;

}  // namespace

PendingList::Entry PendingList::entryOf(GangId g) const {
  const GangState& gs = (*gangs_)[g];
  const GangSpec& spec = gs.spec;
  const NameKey key = nameKey(spec.name);
  Entry e{spec.priority, g, spec.submit_time, key.hi, key.lo};
  // A gang with alternatives shares answers only with gangs of the same ways (its kind is
  // its active way's alone); their pod counts are the same in every way.
  e.kind = gs.ways.empty() ? gs.kind : gs.ways_ask;
  if (e.kind != kNoKind) {
    e.min_count = spec.pod_sets[0].min_count;
    e.count = spec.pod_sets[0].count;
  }
  e.estimate = spec.runtime_estimate.has_value();
  return e;
}

PendingList::Ask PendingList::visitedAsk() const {
  TROUPE_CHECK(walking() && cursor_ > 0 && cursor_ <= sorted_.size(),
               "visitedAsk() outside a walk or before its first gang (cursor {} of {})", cursor_,
               sorted_.size());
  return askOf(sorted_[cursor_ - 1]);
}

bool PendingList::keyLess(const Entry& a, const Entry& b) {
  if (a.priority != b.priority) return a.priority > b.priority;
  if (a.submit_time != b.submit_time) return a.submit_time < b.submit_time;
  if (a.name_hi != b.name_hi) return a.name_hi < b.name_hi;
  return a.name_lo < b.name_lo;
}

bool PendingList::less(const Entry& a, const Entry& b) const {
  if (keyLess(a, b)) return true;
  if (keyLess(b, a)) return false;
  return (*gangs_)[a.gang].spec.name < (*gangs_)[b.gang].spec.name;
}

void PendingList::insert(GangId g) {
  const Entry e = entryOf(g);
  ++live_;
  if (!walking()) {
    staged_.push_back(e);
    return;
  }
  // Ordered insert: whole names are compared only between live entries.
  if (dead_ > 0) compact();
  const auto at = std::lower_bound(sorted_.begin(), sorted_.end(), e,
                                   [this](const Entry& a, const Entry& b) { return less(a, b); });
  const auto index = static_cast<std::size_t>(at - sorted_.begin());
  sorted_.insert(at, e);
  // Before the next entry to visit: the walk has passed its place.
  if (index <= cursor_) ++cursor_;
}

void PendingList::erase(GangId g) {
  if (staged_.size() > kCompactAfter) mergeStaged();
  for (auto it = staged_.begin(); it != staged_.end(); ++it) {
    if (it->gang != g) continue;
    *it = staged_.back();
    staged_.pop_back();
    --live_;
    return;
  }
  const Entry e = entryOf(g);
  auto [from, to] = std::equal_range(sorted_.begin(), sorted_.end(), e, keyLess);
  auto it = std::find_if(from, to, [g](const Entry& x) { return x.gang == g; });
  TROUPE_CHECK(it != to, "gang {} is not in its queue's pending list ({} live, {} dead)",
               (*gangs_)[g].spec.name, live_, dead_);
  it->gang = kNoGang;
  ++dead_;
  --live_;
  if (dead_ > kCompactAfter && dead_ > live_) compact();
}

Seconds PendingList::nextStarving(Seconds now, Seconds max_wait) const {
  Seconds next = std::numeric_limits<Seconds>::max();
  auto consider = [&](const Entry& e) {
    if (e.gang == kNoGang) return;
    const Seconds starves = e.submit_time + max_wait;
    if (starves > now && starves < next) next = starves;
  };
  for (const Entry& e : sorted_) consider(e);
  for (const Entry& e : staged_) consider(e);
  return next;
}

GangId PendingList::front() {
  TROUPE_CHECK(live_ > 0, "front() of an empty pending list");
  if (walking()) {
    compact();
  } else {
    mergeStaged();
  }
  return sorted_.front().gang;
}

void PendingList::beginWalk() {
  TROUPE_CHECK(!walking(), "a pending list's walk began twice (cursor {})", cursor_);
  mergeStaged();
  cursor_ = 0;
}

GangId PendingList::next() {
  const GangId g = peek();
  if (g != kNoGang) ++cursor_;
  return g;
}

GangId PendingList::peek() {
  while (cursor_ < sorted_.size() && sorted_[cursor_].gang == kNoGang) ++cursor_;
  return cursor_ < sorted_.size() ? sorted_[cursor_].gang : kNoGang;
}

void PendingList::endWalk() { cursor_ = kNotWalking; }

void PendingList::compact() {
  if (dead_ == 0) return;
  std::size_t kept = 0;
  std::size_t cursor = cursor_;
  for (std::size_t i = 0; i < sorted_.size(); ++i) {
    if (i == cursor_) cursor = kept;  // the live entries before it stay before it
    if (sorted_[i].gang != kNoGang) sorted_[kept++] = sorted_[i];
  }
  if (walking() && cursor_ >= sorted_.size()) cursor = kept;
  sorted_.resize(kept);
  cursor_ = cursor;
  dead_ = 0;
}

void PendingList::mergeStaged() {
  TROUPE_CHECK(!walking(), "arrivals merged during a walk");
  compact();
  if (staged_.empty()) return;
  auto by_order = [this](const Entry& a, const Entry& b) { return less(a, b); };
  std::sort(staged_.begin(), staged_.end(), by_order);
  const auto middle = static_cast<std::ptrdiff_t>(sorted_.size());
  sorted_.insert(sorted_.end(), staged_.begin(), staged_.end());
  std::inplace_merge(sorted_.begin(), sorted_.begin() + middle, sorted_.end(), by_order);
  // A burst's room is given back: staging stays small between bursts.
  if (staged_.capacity() > kCompactAfter) {
    staged_ = {};
  } else {
    staged_.clear();
  }
}

}  // namespace troupe::queueing
