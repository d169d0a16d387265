#include "test/support/serve_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "test/support/in_process_server.h"

namespace troupe::testing {

std::string troupeBinary() { return std::string(TROUPE_BINARY_DIR) + "/cmd/troupe"; }

ServeProcess::ServeProcess(std::string kube_minor, std::string data_dir, Crds crds)
    : kube_minor_(std::move(kube_minor)), data_dir_(std::move(data_dir)), crds_(crds) {
  if (data_dir_.empty()) data_dir_ = temp_.path() + "/data";
  std::filesystem::create_directories(temp_.path() + "/crds");
  std::ofstream(temp_.path() + "/crds/trainingjobs.yaml") << fixture("crd-trainingjobs.yaml");
}

ServeProcess::~ServeProcess() {
  if (pid_ > 0) stop();
}

std::string ServeProcess::log() const {
  std::ifstream in(temp_.path() + "/serve.log");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

bool ServeProcess::start() {
  exit_.reset();
  port_ = freePort();
  std::string log_file = temp_.path() + "/serve.log";
  std::string listen = "127.0.0.1:" + std::to_string(port_);
  std::string crds =
      crds_ == Crds::Troupe ? std::string(TROUPE_SOURCE_DIR) + "/crds" : temp_.path() + "/crds";
  pid_ = fork();
  if (pid_ == 0) {
    int fd = ::open(log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    std::string binary = troupeBinary();
    std::vector<std::string> args = {binary, "serve",  "--data-dir", data_dir_,      "--listen",
                                     listen, "--crds", crds,         "--kube-minor", kube_minor_};
    if (!with_operator_) args.push_back("--no-operator");
    if (crds_ == Crds::Recorded) args.push_back("--no-admission");
    args.insert(args.end(), extra_args_.begin(), extra_args_.end());
    // Nodes only from a cluster file the test names, not the built-in demo cluster.
    if (std::find(args.begin(), args.end(), "--cluster") == args.end())
      args.insert(args.end(), {"--nodes", "0"});
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  for (int i = 0; i < 200; ++i) {
    HttpCall call;
    call.path = ready_path_;
    call.max_seconds = 2;
    if (httpsRequest(port_, call).status == 200) return true;
    if (exited()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

int ServeProcess::stop() {
  if (pid_ <= 0) return -1;
  ::kill(pid_, SIGTERM);
  for (int i = 0; i < 300; ++i) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ::kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
  return -1;
}

std::optional<int> ServeProcess::exited() {
  if (pid_ > 0) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      exit_ = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
    }
  }
  return pid_ > 0 ? std::nullopt : exit_;
}

void ServeProcess::addArguments(std::vector<std::string> args) {
  extra_args_.insert(extra_args_.end(), std::make_move_iterator(args.begin()),
                     std::make_move_iterator(args.end()));
}

void ServeProcess::kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

}  // namespace troupe::testing
