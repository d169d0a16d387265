#include "test/support/demo_serve.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "test/support/https_client.h"
#include "test/support/serve_process.h"

namespace troupe::testing {

DemoServe::DemoServe(DemoServeOptions options) : options_(std::move(options)) {}

DemoServe::~DemoServe() = default;

std::string DemoServe::log() const {
  std::ifstream in(temp_.path() + "/serve.log");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string DemoServe::adminToken() const {
  std::ifstream in(temp_.path() + "/data/kubeconfig");
  std::string line;
  while (std::getline(in, line)) {
    auto at = line.find("token: ");
    if (at != std::string::npos) return line.substr(at + 7);
  }
  return "";
}

bool DemoServe::start() {
  port_ = freePort();
  metrics_port_ = freePort();
  const std::string work = temp_.path() + "/work";
  std::filesystem::create_directories(work);
  const std::string log_file = temp_.path() + "/serve.log";
  if (!options_.tokens.empty()) {
    std::filesystem::create_directories(temp_.path() + "/data");
    std::ofstream(temp_.path() + "/data/tokens") << options_.tokens;
  }
  std::vector<std::string> args = {options_.binary.empty() ? troupeBinary() : options_.binary,
                                   "serve",
                                   "--data-dir",
                                   temp_.path() + "/data",
                                   "--listen",
                                   "127.0.0.1:" + std::to_string(port_),
                                   "--metrics-addr",
                                   "127.0.0.1:" + std::to_string(metrics_port_)};
  args.insert(args.end(), options_.args.begin(), options_.args.end());
  process_ = std::make_unique<ChildProcess>(std::move(args), log_file, ChildOptions{work});
  for (int i = 0; i < 300; ++i) {
    HttpCall call;
    call.path = "/readyz";
    call.max_seconds = 2;
    if (httpsRequest(port_, call).status == 200) return true;
    if (!process_->running()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

int DemoServe::stop() { return process_ ? process_->stop() : -1; }

CommandResult DemoServe::kubectl(const std::string& args, const std::string& input) const {
  std::string command = "timeout 60 kubectl --kubeconfig " + kubeconfig() + " --cache-dir " +
                        temp_.path() + "/kube-cache " + args;
  if (!input.empty()) {
    std::ofstream(temp_.path() + "/stdin.yaml") << input;
    command += " < " + temp_.path() + "/stdin.yaml";
  }
  return runCommand(command);
}

bool DemoServe::eventually(const std::function<bool()>& condition,
                           std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return condition();
}

std::string demoQueuesYaml() {
  return R"(apiVersion: v1
kind: Namespace
metadata: {name: team-a}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-b}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: demo-normal}
value: 1000
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: demo-high}
value: 10000
---
apiVersion: troupe.dev/v1alpha1
kind: Queue
metadata: {name: org}
spec:
  resources:
    nvidia.com/gpu: {guaranteed: 32, limit: 32}
---
apiVersion: troupe.dev/v1alpha1
kind: Queue
metadata: {name: team-a}
spec:
  parent: org
  resources:
    nvidia.com/gpu: {guaranteed: 16, limit: 24}
  preemption: {withinQueue: Never, reclaim: true}
---
apiVersion: troupe.dev/v1alpha1
kind: Queue
metadata: {name: team-b}
spec:
  parent: org
  resources:
    nvidia.com/gpu: {guaranteed: 16}
)";
}

namespace {

std::string job(const std::string& name, const std::string& priority, int replicas) {
  return "apiVersion: troupe.dev/v1alpha1\nkind: TrainingJob\nmetadata: {name: " + name +
         ", namespace: team-a}\nspec:\n  queue: team-a\n  priorityClassName: " + priority +
         "\n  replicas: " + std::to_string(replicas) +
         "\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: "
         "trainer\n        image: example/trainer:1\n        resources:\n          limits: "
         "{nvidia.com/gpu: 8}\n";
}

}  // namespace

std::string demoRunningJobsYaml() {
  return job("a-big", "demo-normal", 2) + "---\n" + job("a-extra", "demo-normal", 1);
}

std::string demoWaitingJobsYaml() {
  return job("a-late", "demo-normal", 1) + "---\n" + job("a-urgent", "demo-high", 1);
}

}  // namespace troupe::testing
