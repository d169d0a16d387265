#pragma once

#include <string>

namespace troupe::bench {

// One line naming the machine a benchmark ran on: CPU model, logical CPUs, memory,
// kernel and compiler, e.g. "Intel Xeon ... x2, 23.4 GiB, Linux 6.1, GCC 12.2".
std::string describeMachine();

}  // namespace troupe::bench
