#include "test/kubelet/sim_serve.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

namespace troupe::testing {

SimServe::SimServe(std::string cluster_yaml, double sim_speed) : sim_speed_(sim_speed) {
  std::ofstream(temp_.path() + "/cluster.yaml") << cluster_yaml;
}

SimServe::~SimServe() {
  if (pid_ > 0) stop();
}

std::string SimServe::log() const {
  std::ifstream in(temp_.path() + "/serve.log");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

bool SimServe::start() {
  port_ = freePort();
  std::string log_file = temp_.path() + "/serve.log";
  std::string listen = "127.0.0.1:" + std::to_string(port_);
  std::string data = temp_.path() + "/data";
  std::string cluster = temp_.path() + "/cluster.yaml";
  std::string speed = std::to_string(sim_speed_);
  std::string binary = std::string(TROUPE_BINARY_DIR) + "/operator/troupe";
  pid_ = fork();
  if (pid_ == 0) {
    int fd = ::open(log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    execl(binary.c_str(), binary.c_str(), "serve", "--data-dir", data.c_str(), "--listen",
          listen.c_str(), "--cluster", cluster.c_str(), "--sim-speed", speed.c_str(),
          "--no-operator", static_cast<char*>(nullptr));
    _exit(127);
  }
  for (int i = 0; i < 200; ++i) {
    HttpCall call;
    call.path = "/readyz";
    call.max_seconds = 2;
    if (httpsRequest(port_, call).status == 200) return true;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

int SimServe::stop() {
  if (pid_ <= 0) return -1;
  kill(pid_, SIGTERM);
  for (int i = 0; i < 300; ++i) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
  return -1;
}

CommandResult kubectl(const SimServe& serve, const std::string& args) {
  return runCommand("timeout 60 kubectl --kubeconfig " + serve.kubeconfig() + " --cache-dir " +
                    serve.dir() + "/kube-cache " + args);
}

}  // namespace troupe::testing
