#pragma once

#include <cstddef>

// Where a sorted run of lookups resumes: the first index at or after `from` whose
// element does not come before the key, found by probing 1, 2, 4, ... elements ahead
// and then halving the last step. When the next key sits a few elements on, as the
// pods of one gang do in key order, that is a few comparisons where a binary search of
// everything after `from` takes log2 of the rest.
namespace troupe {

// `before(i)` must be true for a prefix of [from, n) and false after it; the result is
// the first index where it is false, or n. Calls `before` at most 2·log2(result - from
// + 1) + 2 times.
template <typename Before>
std::size_t gallopingPartitionPoint(std::size_t from, std::size_t n, Before&& before) {
  // Every index below `from` comes before; the answer is at or below `to`.
  std::size_t to = n;
  for (std::size_t step = 1; from < n; step *= 2) {
    const std::size_t probe = from + step - 1 < n ? from + step - 1 : n - 1;
    if (!before(probe)) {
      to = probe;
      break;
    }
    from = probe + 1;
  }
  while (from < to) {  // halving [from, to): the answer is in [from, to]
    const std::size_t mid = from + (to - from) / 2;
    if (before(mid)) {
      from = mid + 1;
    } else {
      to = mid;
    }
  }
  return from;
}

}  // namespace troupe
