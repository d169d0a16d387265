#pragma once

#include <string>
#include <vector>

#include "common/result.h"

namespace troupe::simulator {

// A program to run as a child process: its arguments (argv[0] is the program's path) and
// the file its stdout and stderr go to (created or truncated).
struct ChildCommand {
  std::vector<std::string> argv;
  std::string log_path;
};

// Runs the commands as child processes, at most `parallel` at once (at least 1), in list
// order as places free up, and waits for all of them. Returns each one's exit status in
// list order: its exit code, or 128 + the signal that ended it. Errors: a log file that
// cannot be opened or a program that cannot be started (the children already started are
// still waited for).
Result<std::vector<int>> runChildren(const std::vector<ChildCommand>& commands, int parallel);

}  // namespace troupe::simulator
