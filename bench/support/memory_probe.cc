#include "bench/support/memory_probe.h"

#include <malloc.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

// jemalloc's control interface, present when the executable links jemalloc (Troupe's
// executables do, outside sanitizer builds: cmake/Dependencies.cmake), null otherwise.
extern "C" int mallctl(const char* name, void* oldp, std::size_t* oldlenp, void* newp,
                       std::size_t newlen) __attribute__((weak));

namespace troupe::bench {

int64_t heapBytesInUse() {
  if (mallctl != nullptr) {
    // Statistics are a snapshot taken at the last epoch: advance it first.
    std::uint64_t epoch = 1;
    std::size_t size = sizeof(epoch);
    mallctl("epoch", &epoch, &size, &epoch, size);
    std::size_t allocated = 0;
    size = sizeof(allocated);
    if (mallctl("stats.allocated", &allocated, &size, nullptr, 0) != 0) return 0;
    return static_cast<int64_t>(allocated);
  }
  struct mallinfo2 info = mallinfo2();
  return static_cast<int64_t>(info.uordblks + info.hblkhd);
}

namespace {

// The line "<field>  1234 kB" of /proc/<pid>/status, in bytes; 0 if absent.
int64_t statusBytes(const std::string& path, const std::string& field) {
  std::ifstream status(path);
  for (std::string line; std::getline(status, line);) {
    if (line.rfind(field, 0) == 0) return std::stoll(line.substr(field.size())) * 1024;
  }
  return 0;
}

}  // namespace

int64_t peakRssBytes() { return statusBytes("/proc/self/status", "VmHWM:"); }

int64_t rssBytesOf(pid_t pid) {
  return statusBytes("/proc/" + std::to_string(pid) + "/status", "VmRSS:");
}

int64_t peakRssBytesOf(pid_t pid) {
  return statusBytes("/proc/" + std::to_string(pid) + "/status", "VmHWM:");
}

}  // namespace troupe::bench
