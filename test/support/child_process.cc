#include "test/support/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

namespace troupe::testing {

ChildProcess::ChildProcess(std::vector<std::string> argv, std::string log_file,
                           ChildOptions options)
    : log_file_(std::move(log_file)), options_(std::move(options)) {
  pid_ = fork();
  if (pid_ == 0) {
    if (options_.own_process_group) setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, options_.own_process_group ? SIGKILL : SIGTERM);
    if (!options_.working_dir.empty() && chdir(options_.working_dir.c_str()) != 0) _exit(126);
    int fd = ::open(log_file_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  // As the child does, whichever runs first: stop() may signal the group at once.
  if (options_.own_process_group && pid_ > 0) setpgid(pid_, pid_);
}

ChildProcess::~ChildProcess() { stop(); }

bool ChildProcess::running() {
  if (pid_ <= 0) return false;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) == pid_) {
    pid_ = -1;
    return false;
  }
  return true;
}

int ChildProcess::stop() {
  if (pid_ <= 0) return -1;
  const pid_t target = options_.own_process_group ? -pid_ : pid_;
  ::kill(target, SIGTERM);
  int code = -1;
  bool exited = false;
  for (int i = 0; i < 300 && !exited; ++i) {
    int status = 0;
    exited = waitpid(pid_, &status, WNOHANG) == pid_;
    if (exited)
      code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    else
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (!exited) ::kill(target, SIGKILL);
  // A group's helpers may outlive its leader's exit.
  if (options_.own_process_group) ::kill(target, SIGKILL);
  if (!exited) waitpid(pid_, nullptr, 0);
  pid_ = -1;
  return code;
}

std::string ChildProcess::log() const {
  std::ifstream in(log_file_);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace troupe::testing
