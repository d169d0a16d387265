#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "queueing/gang_state.h"
#include "queueing/placement_memo.h"

namespace troupe::queueing {

// What a waiting gang asks of a walk: its one pod set's placement kind (for a gang with
// alternatives, the id of its ways' kinds), that pod set's least and full pods, and its
// priority (answer_memo.h, answers within a walk).
struct AskKey {
  KindId kind = kNoKind;
  std::int32_t min_count = 0, count = 0, priority = 0;
  friend bool operator==(const AskKey&, const AskKey&) = default;
};

// An answer: the Why a gang was left with and, for a gang with alternatives, the way it
// waits on (GangState::way).
struct WalkAnswer {
  Why why;
  std::size_t way = 0;
};

// The answers given in one stretch of a queue's walk, by ask. A walk looks one up for
// nearly every gang it visits, so this is a small open-addressed table cleared by
// forgetting only the slots it used: std::unordered_map's division per lookup and node
// per entry were a tenth of a settled cycle. A stretch holds a few dozen asks; past
// kMaxAnswers the table keeps no more (a gang without a kept answer is simply tried).
class WalkAnswers {
 public:
  static constexpr std::size_t kSlots = 256;  // a power of two
  static constexpr std::size_t kMaxAnswers = kSlots / 2;

  bool empty() const { return answers_.empty(); }

  void clear() {
    for (std::uint16_t s : used_) slots_[s].answer = kNone;
    used_.clear();
    answers_.clear();
  }

  const WalkAnswer* find(const AskKey& key) const {
    if (answers_.empty()) return nullptr;
    for (std::size_t s = slotOf(key);; s = (s + 1) & (kSlots - 1)) {
      const Slot& slot = slots_[s];
      if (slot.answer == kNone) return nullptr;
      if (slot.key == key) return &answers_[static_cast<std::size_t>(slot.answer)];
    }
  }

  // Keeps `answer` as the answer to `key`, replacing an earlier one.
  void put(const AskKey& key, const WalkAnswer& answer) {
    for (std::size_t s = slotOf(key);; s = (s + 1) & (kSlots - 1)) {
      Slot& slot = slots_[s];
      if (slot.answer != kNone && slot.key == key) {
        answers_[static_cast<std::size_t>(slot.answer)] = answer;
        return;
      }
      if (slot.answer != kNone) continue;
      if (answers_.size() >= kMaxAnswers) return;  // full enough: keep no more
      slot.key = key;
      slot.answer = static_cast<std::int32_t>(answers_.size());
      answers_.push_back(answer);
      used_.push_back(static_cast<std::uint16_t>(s));
      return;
    }
  }

 private:
  static constexpr std::int32_t kNone = -1;
  struct Slot {
    AskKey key;
    std::int32_t answer = kNone;  // index in answers_
  };
  static std::size_t slotOf(const AskKey& k) {
    std::uint32_t h = static_cast<std::uint32_t>(k.kind) * 0x9E3779B1u;
    h ^= static_cast<std::uint32_t>(k.min_count) * 0x85EBCA77u;
    h ^= static_cast<std::uint32_t>(k.count) * 0xC2B2AE3Du;
    h ^= static_cast<std::uint32_t>(k.priority) * 0x27D4EB2Fu;
    return (h ^ (h >> 15)) & (kSlots - 1);
  }

  std::array<Slot, kSlots> slots_{};
  std::vector<std::uint16_t> used_;
  std::vector<WalkAnswer> answers_;
};

}  // namespace troupe::queueing
