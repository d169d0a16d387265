#include "bench/api/serve_child.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <deque>
#include <filesystem>
#include <fstream>
#include <thread>

#include "kube/kubeconfig.h"

namespace troupe::bench {
namespace {

// A port that was free a moment ago on 127.0.0.1.
Result<int> freePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return makeError(ErrorCode::Unavailable, "port", "socket() failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ::close(fd);
    return makeError(ErrorCode::Unavailable, "port", "no free port on 127.0.0.1");
  }
  ::close(fd);
  return static_cast<int>(ntohs(addr.sin_port));
}

int64_t statusField(const std::string& path, const std::string& field) {
  std::ifstream status(path);
  for (std::string line; std::getline(status, line);) {
    if (line.rfind(field, 0) == 0) return std::stoll(line.substr(field.size())) * 1024;  // kB
  }
  return 0;
}

}  // namespace

ProcessMemory processMemory(pid_t pid) {
  std::string path = fmt::format("/proc/{}/status", pid);
  return ProcessMemory{statusField(path, "VmRSS:"), statusField(path, "VmHWM:")};
}

Result<std::unique_ptr<ServeChild>> ServeChild::start(const ServeChildOptions& options) {
  std::unique_ptr<ServeChild> child(new ServeChild());
  child->options_ = options;
  std::string pattern = (std::filesystem::temp_directory_path() / "troupe-bench-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)
    return makeError(ErrorCode::Internal, "temp dir", "mkdtemp failed for " + pattern);
  child->work_dir_ = pattern;
  auto port = freePort();
  if (!port) return port.error();
  child->port_ = *port;

  const std::string data_dir = child->work_dir_ + "/data";
  child->log_file_ = options.log_file.empty() ? child->work_dir_ + "/serve.log" : options.log_file;
  const std::string& log_file = child->log_file_;
  std::vector<std::string> args = {"/proc/self/exe", "serve",
                                   "--data-dir",     data_dir,
                                   "--listen",       fmt::format("127.0.0.1:{}", child->port_),
                                   "--crds",         options.crd_dir,
                                   "--sim-speed",    fmt::format("{}", options.sim_speed),
                                   "--log-level",    options.log_level};
  // No cluster file: no nodes (not the built-in demo cluster).
  if (options.cluster_file.empty())
    args.insert(args.end(), {"--nodes", "0"});
  else
    args.insert(args.end(), {"--cluster", options.cluster_file});
  if (!options.operator_in_process) args.push_back("--no-operator");
  if (!options.authorization_log.empty())
    args.insert(args.end(),
                {"--authorization-log", options.authorization_log.front() == '/'
                                            ? options.authorization_log
                                            : child->work_dir_ + "/" + options.authorization_log});
  if (!options.kubelets) args.push_back("--no-kubelets");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  pid_t pid = ::fork();
  if (pid < 0) return makeError(ErrorCode::Internal, "fork", "cannot start troupe serve");
  if (pid == 0) {
    // The server ends with the benchmark, even one that crashed or was killed.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    int fd = ::open(log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    ::execv("/proc/self/exe", argv.data());
    _exit(127);
  }
  child->pid_ = pid;

  // The server writes its kubeconfig, then serves; it loads nodes and CRDs before it listens.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(options.start_timeout_seconds);
  const std::string kubeconfig = data_dir + "/kubeconfig";
  std::string last_error = "no kubeconfig written";
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      child->pid_ = -1;
      return makeError(ErrorCode::Unavailable, "troupe serve",
                       fmt::format("exited with status {} before it was ready; its log:\n{}",
                                   WIFEXITED(status) ? WEXITSTATUS(status) : -1, child->logTail()));
    }
    if (!child->client_ && std::filesystem::exists(kubeconfig)) {
      kube::KubeconfigOptions source;
      source.explicit_path = kubeconfig;
      auto config = kube::loadKubeconfig(source);
      if (config) {
        config->qps = options.client_qps;
        config->burst = options.client_burst;
        config->max_idle_connections = options.client_idle_connections;
        config->request_timeout = std::chrono::milliseconds(120'000);
        config->max_retries = 0;
        child->config_ = *config;
        auto client = kube::RestKubeClient::create(*config);
        if (client) child->client_ = std::move(client.value());
      }
    }
    if (child->client_) {
      auto version = child->client_->getPath("/version");
      if (version) {
        child->config_.max_retries = 5;
        auto client = kube::RestKubeClient::create(child->config_);
        if (!client) return client.error();
        child->client_ = std::move(client.value());
        return child;
      }
      last_error = version.error().describe();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return makeError(ErrorCode::Timeout, "troupe serve",
                   fmt::format("not ready after {} s ({}); its log:\n{}",
                               options.start_timeout_seconds, last_error, child->logTail()));
}

ServeChild::~ServeChild() {
  stop();
  if (!work_dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(work_dir_, ec);
  }
}

int ServeChild::stop() {
  if (pid_ <= 0) return -1;
  client_.reset();
  ::kill(pid_, SIGTERM);
  for (int i = 0; i < 600; ++i) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
  return -1;
}

Result<std::unique_ptr<kube::RestKubeClient>> ServeChild::newClient() const {
  auto client = kube::RestKubeClient::create(config_);
  if (!client) return client.error();
  return std::move(client.value());
}

std::string ServeChild::logTail(int lines) const {
  std::ifstream in(log_file_);
  std::deque<std::string> tail;
  for (std::string line; std::getline(in, line);) {
    tail.push_back(line);
    if (static_cast<int>(tail.size()) > lines) tail.pop_front();
  }
  std::string out;
  for (const auto& line : tail) out += "  " + line + "\n";
  return out;
}

}  // namespace troupe::bench
