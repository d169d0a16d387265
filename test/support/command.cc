#include "test/support/command.h"

#include <sys/wait.h>

#include <array>
#include <cstdio>

namespace troupe::testing {

CommandResult runCommand(const std::string& command, bool with_stderr) {
  CommandResult result;
  FILE* pipe = popen((with_stderr ? command + " 2>&1" : command).c_str(), "r");
  if (!pipe) return result;
  std::array<char, 4096> buffer{};
  std::size_t n;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    result.output.append(buffer.data(), n);
  int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

}  // namespace troupe::testing
