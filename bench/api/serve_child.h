#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "kube/rest_kube_client.h"

// The real `troupe serve` (this same executable, /proc/self/exe) as a child process on a
// free 127.0.0.1 port, with a fresh data directory, and a kube client to it. What the API
// benchmarks measure is that process, over real HTTPS.
namespace troupe::bench {

struct ServeChildOptions {
  std::string cluster_file;  // YAML of Node objects (empty: none)
  std::string crd_dir;       // the CRD manifests to apply at start
  bool operator_in_process = false;
  bool kubelets = false;
  double sim_speed = 1;
  std::string log_level = "info";
  // The server's record of every request (--authorization-log), a path relative to the
  // child's work directory unless absolute; empty: none.
  std::string authorization_log;
  // Where the child's stdout and stderr go; empty: a file in its temp dir, removed with it.
  std::string log_file;
  // How long to wait for the server to answer after the start (it loads the cluster first).
  int start_timeout_seconds = 120;
  // Client-side limits high enough that the client never throttles the measure.
  double client_qps = 1e6;
  int client_burst = 1'000'000;
  int client_idle_connections = 64;
};

// Resident and peak resident set size of a process, from /proc/<pid>/status; 0 if unknown.
struct ProcessMemory {
  int64_t rss_bytes = 0;
  int64_t hwm_bytes = 0;
};
ProcessMemory processMemory(pid_t pid);

class ServeChild {
 public:
  // Creates a temp dir, starts `troupe serve` in it and waits until /version answers. On
  // failure the error says why and the child's last log lines; nothing is left behind.
  static Result<std::unique_ptr<ServeChild>> start(const ServeChildOptions& options);
  ~ServeChild();
  ServeChild(const ServeChild&) = delete;
  ServeChild& operator=(const ServeChild&) = delete;

  // SIGTERM, then waits (SIGKILL after 30 s); returns the exit status (-1 if killed or
  // already stopped). Idempotent. The destructor also removes the temp dir.
  int stop();

  pid_t pid() const { return pid_; }
  int port() const { return port_; }
  const std::string& workDir() const { return work_dir_; }
  // A client of its own (connections are pooled per client; give each thread one).
  Result<std::unique_ptr<kube::RestKubeClient>> newClient() const;
  kube::RestKubeClient& client() { return *client_; }
  const kube::ClientConfig& config() const { return config_; }
  ProcessMemory memory() const { return processMemory(pid_); }
  // The last `lines` lines of the child's stdout and stderr.
  std::string logTail(int lines = 20) const;

 private:
  ServeChild() = default;

  ServeChildOptions options_;
  std::string work_dir_;
  std::string log_file_;
  pid_t pid_ = -1;
  int port_ = 0;
  kube::ClientConfig config_;
  std::unique_ptr<kube::RestKubeClient> client_;
};

}  // namespace troupe::bench
