#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "test/support/https_client.h"
#include "test/support/temp_dir.h"

// The real `troupe serve` executable as a child process on a free 127.0.0.1 port, with
// its own data directory (SQLite store) and the recorded TrainingJob CRD.
namespace troupe::testing {

class ServeProcess {
 public:
  // Recorded: the stand-in TrainingJob CRD recorded from a real server, without Troupe's
  // admission (which checks Troupe's own kinds). Troupe: the repository's crds/, admission on.
  enum class Crds { Recorded, Troupe };
  // `data_dir` empty: a fresh temp dir owned by this object.
  explicit ServeProcess(std::string kube_minor = "28", std::string data_dir = "",
                        Crds crds = Crds::Recorded);
  ~ServeProcess();

  // Starts and waits until /readyz answers ok (at most ~20 s); false if it did not.
  bool start();
  // Runs the operator in the process too (its state store in DATA_DIR/operator), from the
  // next start() on.
  void withOperator() { with_operator_ = true; }
  // What start() waits for instead of /readyz (a server that cannot write is not ready,
  // but may serve reads: /healthz).
  void waitFor(std::string path) { ready_path_ = std::move(path); }
  // Whether the child is still running; if it ended, how: its exit code, or -signal.
  std::optional<int> exited();
  // SIGTERM, then waits for the exit; returns the exit status (-1 if it had to be killed).
  int stop();
  // SIGKILL: no shutdown at all, whatever is in flight is cut off.
  void kill();

  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  const std::string& dataDir() const { return data_dir_; }
  std::string kubeconfig() const { return data_dir_ + "/kubeconfig"; }
  const std::string& workDir() const { return temp_.path(); }
  std::string log() const;

 protected:
  // More `troupe serve` flags, for the next start().
  void addArguments(std::vector<std::string> args);

 private:
  TempDir temp_;
  std::string kube_minor_;
  std::string data_dir_;
  Crds crds_;
  int port_ = 0;
  pid_t pid_ = -1;
  std::vector<std::string> extra_args_;
  bool with_operator_ = false;
  std::string ready_path_ = "/readyz";
  std::optional<int> exit_;  // how the child ended, once seen
};

// Path of the built `troupe` executable.
std::string troupeBinary();

}  // namespace troupe::testing
