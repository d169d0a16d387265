#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace troupe::queueing {

// How many resources one ResourceVector tracks. Slots 0..2 are fixed (GPU, CPU,
// memory); the rest hold extended resources named by a ResourceNames table, among them
// the per-type GPU quota resources (gpu.troupe.dev/<type>) a caller adds for GPU types.
inline constexpr std::size_t kMaxResources = 8;

// The fixed slots. Units: GPUs are counts, CPU is milli-cores, memory is bytes.
enum ResourceSlot : std::size_t { kGpu = 0, kCpu = 1, kMemory = 2, kFirstExtended = 3 };

// A compact vector of integer resource quantities, one per slot. It is a plain value
// (64 bytes), cheap to copy, compared slot by slot.
class ResourceVector {
 public:
  constexpr ResourceVector() = default;

  static constexpr ResourceVector of(std::int64_t gpus, std::int64_t cpu_milli,
                                     std::int64_t memory_bytes) {
    ResourceVector v;
    v.q_[kGpu] = gpus;
    v.q_[kCpu] = cpu_milli;
    v.q_[kMemory] = memory_bytes;
    return v;
  }
  // A vector with every slot set to `q` (e.g. an "unlimited" limit).
  static constexpr ResourceVector filled(std::int64_t q) {
    ResourceVector v;
    v.q_.fill(q);
    return v;
  }
  // The quantity that stands for "no limit".
  static constexpr std::int64_t kUnlimited = INT64_C(1) << 60;

  constexpr std::int64_t operator[](std::size_t slot) const { return q_[slot]; }
  constexpr std::int64_t& operator[](std::size_t slot) { return q_[slot]; }

  constexpr ResourceVector& operator+=(const ResourceVector& o) {
    for (std::size_t i = 0; i < kMaxResources; ++i) q_[i] += o.q_[i];
    return *this;
  }
  constexpr ResourceVector& operator-=(const ResourceVector& o) {
    for (std::size_t i = 0; i < kMaxResources; ++i) q_[i] -= o.q_[i];
    return *this;
  }
  friend constexpr ResourceVector operator+(ResourceVector a, const ResourceVector& b) {
    return a += b;
  }
  friend constexpr ResourceVector operator-(ResourceVector a, const ResourceVector& b) {
    return a -= b;
  }
  friend constexpr ResourceVector operator*(ResourceVector a, std::int64_t n) {
    for (auto& q : a.q_) q *= n;
    return a;
  }
  friend constexpr bool operator==(const ResourceVector&, const ResourceVector&) = default;

  // True when every slot of this is at most the same slot of `o`.
  constexpr bool fitsIn(const ResourceVector& o) const {
    for (std::size_t i = 0; i < kMaxResources; ++i)
      if (q_[i] > o.q_[i]) return false;
    return true;
  }
  constexpr bool isZero() const {
    return std::all_of(q_.begin(), q_.end(), [](std::int64_t q) { return q == 0; });
  }
  constexpr bool anyNegative() const {
    return std::any_of(q_.begin(), q_.end(), [](std::int64_t q) { return q < 0; });
  }
  // How many copies of `per_copy` fit into this vector (slots `per_copy` does not use
  // are ignored); `cap` when `per_copy` is zero.
  constexpr std::int64_t copiesOf(const ResourceVector& per_copy, std::int64_t cap) const {
    std::int64_t n = cap;
    if (n <= 0) return n;
    for (std::size_t i = 0; i < kMaxResources; ++i) {
      if (per_copy.q_[i] <= 0) continue;
      // Most calls ask whether a node holds a few more pods, and it usually does: a
      // product answers that without the division that dominated placement scans.
      std::int64_t need = 0;
      if (!__builtin_mul_overflow(per_copy.q_[i], n, &need) && q_[i] >= need) continue;
      n = q_[i] <= 0 ? 0 : q_[i] / per_copy.q_[i];  // below n: q_[i] < per_copy * n
      if (n == 0) return 0;
    }
    return n;
  }
  static constexpr ResourceVector min(const ResourceVector& a, const ResourceVector& b) {
    ResourceVector v;
    for (std::size_t i = 0; i < kMaxResources; ++i) v.q_[i] = std::min(a.q_[i], b.q_[i]);
    return v;
  }
  static constexpr ResourceVector max(const ResourceVector& a, const ResourceVector& b) {
    ResourceVector v;
    for (std::size_t i = 0; i < kMaxResources; ++i) v.q_[i] = std::max(a.q_[i], b.q_[i]);
    return v;
  }

 private:
  std::array<std::int64_t, kMaxResources> q_{};
};

// The names of the slots, for explanations and for converting API quantities. The first
// three are fixed; `add` hands out the extended slots in call order.
class ResourceNames {
 public:
  ResourceNames() : names_{"nvidia.com/gpu", "cpu", "memory"}, count_(kFirstExtended) {}

  // The slot for `name`, adding it when it is new; kMaxResources when the table is full.
  std::size_t slotFor(const std::string& name) {
    for (std::size_t i = 0; i < count_; ++i)
      if (names_[i] == name) return i;
    if (count_ == kMaxResources) return kMaxResources;
    names_[count_] = name;
    return count_++;
  }
  const std::string& name(std::size_t slot) const { return names_[slot]; }
  std::size_t size() const { return count_; }
  friend bool operator==(const ResourceNames&, const ResourceNames&) = default;

 private:
  std::array<std::string, kMaxResources> names_;
  std::size_t count_;
};

}  // namespace troupe::queueing
