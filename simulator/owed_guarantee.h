#pragma once

#include <cstdint>
#include <map>

namespace troupe::simulator {

// The GPU sizes of one queue's gangs (running at their current size, pending at their
// full size): size -> how many gangs have it.
using GangSizes = std::map<int64_t, int64_t>;

// What a queue is owed of its guarantee: the most GPUs its gangs could hold within it, that
// is the largest total of some of them that is at most `guaranteed` (gangs are whole: a
// queue guaranteed 50 GPUs whose gangs ask 32 and 32 is owed 32, not 50). Exact (a subset
// sum over a bit set of guaranteed + 1 bits, each size taken up to its count by binary
// splitting); 0 when guaranteed <= 0.
int64_t owedGuarantee(const GangSizes& sizes, int64_t guaranteed);

}  // namespace troupe::simulator
