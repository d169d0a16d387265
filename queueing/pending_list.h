#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "queueing/ids.h"
#include "queueing/placement_memo.h"
#include "queueing/snapshot.h"

namespace troupe::queueing {

struct GangState;

// The pending gangs of one queue in admission order: priority (high first), submit time,
// name. Starving gangs come first within a priority without a key of their own: starving
// means submitted before now - maxWait, a prefix of this order.
//
// Stored flat, each entry with its sort keys, so that the cycle's walk over 100,000
// pending gangs reads memory in sequence and compares without touching the gangs' state
// (a tree of gang ids chased one pointer per gang, and compared through two more).
//  - insert() outside a walk appends to an unsorted tail, sorted and merged in at the
//    next walk or read of the order: a burst of arrivals costs one sort, not one
//    ordered insert each.
//  - erase() finds the entry by binary search on its keys and leaves it dead in place;
//    dead entries are dropped together once they outnumber the live ones, or before an
//    ordered insert, so the cost of an admission does not grow with the queue.
//  - A walk visits the gangs in order and may pause and resume within a cycle. It sees
//    what an iterator over an ordered set would, which moves to the next gang as it
//    hands one out: a gang inserted during the walk is visited if and only if it sorts
//    after the gang the walk stands on (the one next() returns next).
// A gang's priority, submit time and name must not change while it is in the list.
class PendingList {
 public:
  explicit PendingList(const std::vector<GangState>* gangs) : gangs_(gangs) {}

  void insert(GangId g);
  void erase(GangId g);  // g must be in the list
  bool empty() const { return live_ == 0; }
  std::size_t size() const { return live_; }
  GangId front();  // the first gang in order; the list must not be empty

  void beginWalk();  // not while a walk is on
  bool walking() const { return cursor_ != kNotWalking; }
  GangId next();  // the next gang in order, kNoGang once every gang was visited
  GangId peek();  // what next() would return, without moving
  // The gang k places after the cursor, kNoGang past the end or where one was erased:
  // for fetching the state of gangs about to be visited.
  GangId ahead(std::size_t k) const {
    return walking() && cursor_ + k < sorted_.size() ? sorted_[cursor_ + k].gang : kNoGang;
  }
  void endWalk();

  // The earliest submit time + max_wait after `now` over its gangs: when the next of them
  // starts to starve (the numeric maximum when none will). Reads the entries' own keys,
  // not the gangs' state.
  Seconds nextStarving(Seconds now, Seconds max_wait) const;

  // What a gang asks, copied into its entry when it is inserted (a gang's spec does not
  // change while it exists), so that the walk can tell two gangs that ask the same apart
  // from the rest without reading their state (answer_memo.h, answers within a walk).
  struct Ask {
    KindId kind = kNoKind;       // its one pod set's placement kind; kNoKind otherwise
    std::int32_t min_count = 0;  // that pod set's pods, least and full (kind set only)
    std::int32_t count = 0;
    std::int32_t priority = 0;
    Seconds submit_time = 0;
    bool estimate = false;  // carries a runtime estimate
  };
  // The ask of the gang next() returned last; valid until the list next changes.
  Ask visitedAsk() const;
  // The ask of the gang ahead(k) names (kind kNoKind where that is kNoGang).
  Ask aheadAsk(std::size_t k) const {
    return walking() && cursor_ + k < sorted_.size() ? askOf(sorted_[cursor_ + k]) : Ask{};
  }

 private:
  static constexpr std::size_t kNotWalking = std::numeric_limits<std::size_t>::max();

  struct Entry {
    std::int32_t priority = 0;
    GangId gang = kNoGang;  // kNoGang: erased (dead)
    Seconds submit_time = 0;
    std::uint64_t name_hi = 0, name_lo = 0;
    KindId kind = kNoKind;
    std::int32_t min_count = 0, count = 0;
    bool estimate = false;
  };
  Entry entryOf(GangId g) const;
  static Ask askOf(const Entry& e) {
    return Ask{e.kind, e.min_count, e.count, e.priority, e.submit_time, e.estimate};
  }
  // The order without its last tie-break (whole names): erase() searches by it, since a
  // dead entry's gang id may already name another gang.
  static bool keyLess(const Entry& a, const Entry& b);
  bool less(const Entry& a, const Entry& b) const;  // live entries only
  void compact();                                   // keeps the cursor on its gang
  void mergeStaged();                               // not during a walk

  const std::vector<GangState>* gangs_;
  std::vector<Entry> sorted_;  // in order, dead entries included
  std::vector<Entry> staged_;  // inserted outside a walk, in no order, all live
  std::size_t live_ = 0;
  std::size_t dead_ = 0;
  std::size_t cursor_ = kNotWalking;  // index in sorted_ of the next entry to visit
};

}  // namespace troupe::queueing
