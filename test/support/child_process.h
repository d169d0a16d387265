#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

// A program run by a test as a child process, its output in a log file, stopped (SIGTERM,
// then SIGKILL) when the object goes, and never outliving the test.
namespace troupe::testing {

class ChildProcess {
 public:
  ChildProcess(std::vector<std::string> argv, std::string log_file);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  bool running();
  // SIGTERM, then waits (SIGKILL after 15 s); the exit status, -1 if killed or not running.
  int stop();
  std::string log() const;

 private:
  std::string log_file_;
  pid_t pid_ = -1;
};

}  // namespace troupe::testing
