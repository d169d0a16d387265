#include "bench/support/process_cpu.h"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace troupe::bench {

std::optional<double> processCpuSeconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return std::nullopt;
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so the fields are
  // counted from the last ')'. utime and stime are fields 14 and 15 (proc(5)), the 12th
  // and 13th after it.
  const auto close = line.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(line.substr(close + 1));
  std::vector<std::string> after;
  for (std::string field; after.size() < 13 && fields >> field;) after.push_back(field);
  if (after.size() < 13) return std::nullopt;
  try {
    const double ticks = static_cast<double>(std::stoull(after[11]) + std::stoull(after[12]));
    return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace troupe::bench
