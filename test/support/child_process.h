#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

// A program run by a test as a child process, its output in a log file, stopped (SIGTERM,
// then SIGKILL) when the object goes, and never outliving the test.
namespace troupe::testing {

struct ChildOptions {
  std::string working_dir;  // empty: the test's
  // Leads a process group of its own, and stop() signals the whole group: for programs
  // that start helpers of their own (a browser).
  bool own_process_group = false;
};

class ChildProcess {
 public:
  ChildProcess(std::vector<std::string> argv, std::string log_file, ChildOptions options = {});
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  bool running();
  // SIGTERM, then waits (SIGKILL after 15 s); the exit status, -1 if killed or not running.
  int stop();
  std::string log() const;

 private:
  std::string log_file_;
  ChildOptions options_;
  pid_t pid_ = -1;
};

}  // namespace troupe::testing
