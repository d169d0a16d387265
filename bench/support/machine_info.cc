#include "bench/support/machine_info.h"

#include <fmt/format.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace troupe::bench {

std::string describeMachine() {
  std::string cpu = "unknown CPU";
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) cpu = line.substr(colon + 2);
      break;
    }
  }
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  double mem_gib = static_cast<double>(sysconf(_SC_PHYS_PAGES)) *
                   static_cast<double>(sysconf(_SC_PAGE_SIZE)) / (1024.0 * 1024 * 1024);
  struct utsname uts {};
  std::string kernel = uname(&uts) == 0 ? fmt::format("{} {}", uts.sysname, uts.release) : "";
  return fmt::format("{}, {} logical CPUs, {:.1f} GiB RAM, {}, GCC {}.{}", cpu, cpus, mem_gib,
                     kernel, __GNUC__, __GNUC_MINOR__);
}

}  // namespace troupe::bench
