#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "queueing/resource_vector.h"

namespace troupe::queueing {

// Placement outcomes depend only on a pod set's constraints, pod request and topology
// (for a fixed view of free capacity). Free capacity only shrinks until something is
// released (a gang ends or is preempted, a node or reservation changes: then the memos
// are cleared), so "n pods of this kind did not fit" stays true for every count >= n:
// later gangs of the same kind fail in O(1), in this cycle and the next ones.
struct MemoKey {
  std::int32_t cls = 0;
  std::int32_t mode = 0;
  std::int32_t level = -1;
  ResourceVector request;
  std::int32_t gpu_milli = 0;  // PodShape::gpu_milli
  friend bool operator==(const MemoKey&, const MemoKey&) = default;
};

// A kind: one interned MemoKey (EngineState::kindOf). Gangs of one pod set carry their
// kind from the moment they are added, so a memo lookup is an index. Failed preemption
// searches, whose rules depend on the queue too, are kept by (kind, queue): preemptKey().
using KindId = std::int32_t;
inline constexpr KindId kNoKind = -1;

struct MemoKeyHash {
  std::size_t operator()(const MemoKey& k) const {
    std::size_t h = std::hash<std::int64_t>{}(k.cls) * 1000003u ^
                    std::hash<std::int64_t>{}(k.mode * 131 + k.level) ^
                    std::hash<std::int64_t>{}(k.gpu_milli) * 7919u;
    for (std::size_t r = 0; r < kMaxResources; ++r)
      h = h * 1099511628211ull ^ std::hash<std::int64_t>{}(k.request[r]);
    return h;
  }
};

// "min_failing pods of the kind do not fit", and where the most of them would.
struct MemoEntry {
  std::int64_t min_failing = 0;
  std::int32_t level = -1;
  std::int32_t domain = -1;
  std::int64_t domain_pods = 0;
};

// Outcomes by kind. Entries are never erased one by one, only all at once; clear() is a
// generation step, so clearing a memo costs nothing per kind.
class KindMemo {
 public:
  MemoEntry* find(KindId k) {
    const auto i = static_cast<std::size_t>(k);
    return i < stamp_.size() && stamp_[i] == generation_ ? &entries_[i] : nullptr;
  }
  // The entry of k, value-initialised when it was absent; `second` says whether it was.
  std::pair<MemoEntry*, bool> tryEmplace(KindId k) {
    const auto i = static_cast<std::size_t>(k);
    if (i >= stamp_.size()) {
      stamp_.resize(i + 1, 0);
      entries_.resize(i + 1);
    }
    if (stamp_[i] == generation_) return {&entries_[i], false};
    stamp_[i] = generation_;
    entries_[i] = MemoEntry{};
    live_.push_back(k);
    return {&entries_[i], true};
  }
  void clear() {
    live_.clear();
    if (++generation_ == 0) {  // wrapped: no stale stamp may match again
      std::fill(stamp_.begin(), stamp_.end(), 0);
      generation_ = 1;
    }
  }
  // fn(kind, entry) for every entry, in the order they were added.
  template <typename Fn>
  void forEach(Fn fn) {
    for (KindId k : live_) fn(k, entries_[static_cast<std::size_t>(k)]);
  }

 private:
  std::vector<MemoEntry> entries_;    // by kind
  std::vector<std::uint32_t> stamp_;  // by kind: the generation that filled the entry
  std::uint32_t generation_ = 1;
  std::vector<KindId> live_;  // kinds with an entry of this generation
};

}  // namespace troupe::queueing
