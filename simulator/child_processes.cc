#include "simulator/child_processes.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <optional>

extern char** environ;

namespace troupe::simulator {
namespace {

// Starts one command with its output in its log file; the pid, or an error.
Result<pid_t> start(const ChildCommand& command) {
  const int log = ::open(command.log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log < 0) {
    return makeError(ErrorCode::Internal, "--out",
                     fmt::format("cannot open '{}': {}", command.log_path, std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, log, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, log, STDERR_FILENO);
  std::vector<char*> argv;
  for (const auto& arg : command.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(log);
  if (rc != 0) {
    return makeError(ErrorCode::Internal, "",
                     fmt::format("cannot start '{}': {}", command.argv[0], std::strerror(rc)));
  }
  return pid;
}

int exitStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 255;
}

}  // namespace

Result<std::vector<int>> runChildren(const std::vector<ChildCommand>& commands, int parallel) {
  if (parallel < 1) parallel = 1;
  std::vector<int> statuses(commands.size(), -1);
  std::map<pid_t, size_t> running;
  std::optional<Error> failed;
  size_t next = 0;
  while (next < commands.size() || !running.empty()) {
    while (!failed && next < commands.size() && static_cast<int>(running.size()) < parallel) {
      auto pid = start(commands[next]);
      if (!pid) {
        failed = pid.error();
        break;
      }
      running.emplace(*pid, next++);
    }
    if (running.empty()) break;
    // Polls this function's own children only (waitpid(-1) could reap a caller's), a few
    // times a second: the commands run for seconds to minutes.
    bool reaped = false;
    for (auto it = running.begin(); it != running.end();) {
      int status = 0;
      const pid_t pid = ::waitpid(it->first, &status, WNOHANG);
      if (pid < 0 && errno == EINTR) continue;
      if (pid < 0) {
        return makeError(ErrorCode::Internal, "", fmt::format("waitpid: {}", std::strerror(errno)));
      }
      if (pid == 0) {
        ++it;
        continue;
      }
      statuses[it->second] = exitStatus(status);
      it = running.erase(it);
      reaped = true;
    }
    if (!reaped) ::usleep(20'000);
  }
  if (failed) return *failed;
  return statuses;
}

}  // namespace troupe::simulator
