#include "bench/support/memory_probe.h"

#include <malloc.h>

#include <fstream>
#include <string>

namespace troupe::bench {

int64_t heapBytesInUse() {
  struct mallinfo2 info = mallinfo2();
  return static_cast<int64_t>(info.uordblks + info.hblkhd);
}

int64_t peakRssBytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmHWM:", 0) == 0) {
      return std::stoll(line.substr(6)) * 1024;  // the line is "VmHWM:  1234 kB"
    }
  }
  return 0;
}

}  // namespace troupe::bench
