#pragma once

#include <string>

// Runs a shell command for a test and collects what it printed.
namespace troupe::testing {

struct CommandResult {
  int exit_code = -1;
  std::string output;
};

// The command's exit code and its stdout, with stderr too unless `with_stderr` is false.
CommandResult runCommand(const std::string& command, bool with_stderr = true);

}  // namespace troupe::testing
