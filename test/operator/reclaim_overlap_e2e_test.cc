// A reclaim whose victims take seconds to terminate, watched pod by pod with the real
// kubectl: no GPU is ever held by two pods, across an operator restart in the middle.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "controllers/object_json.h"
#include "test/operator/cluster_fixture.h"
#include "test/operator/manifests.h"

using namespace troupe::operator_runtime::testing;
using Json = nlohmann::json;
namespace ctl = troupe::controllers;

namespace {

// Every pod event `kubectl get pods -A -w -o json --output-watch-events` prints, checked as
// it arrives: after each, no (node, GPU index) is held by two pods and no node holds more
// GPUs than it has. Holding: bound, not Succeeded or Failed, still in the API (being
// deleted or not).
class PodWatch {
 public:
  PodWatch(const std::string& kubeconfig, int gpus_per_node) : gpus_per_node_(gpus_per_node) {
    int out[2];
    REQUIRE(pipe(out) == 0);
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], 1);
      close(out[0]);
      close(out[1]);
      execlp("kubectl", "kubectl", "--kubeconfig", kubeconfig.c_str(), "get", "pods", "-A", "-w",
             "-o", "json", "--output-watch-events", static_cast<char*>(nullptr));
      _exit(127);
    }
    close(out[1]);
    reader_ = std::thread([this, fd = out[0]] { read(fd); });
  }
  ~PodWatch() { stop(); }

  void stop() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      int status = 0;
      waitpid(pid_, &status, 0);
      pid_ = -1;
    }
    if (reader_.joinable()) reader_.join();
  }

  std::vector<std::string> overlaps() const {
    std::lock_guard lock(mu_);
    return {overlaps_.begin(), overlaps_.end()};
  }
  std::size_t events() const { return events_.load(); }
  // Pods seen with a deletionTimestamp while still bound and running.
  std::set<std::string> terminated() const {
    std::lock_guard lock(mu_);
    return terminating_;
  }
  bool anyTerminatingNow() const {
    std::lock_guard lock(mu_);
    for (const auto& [key, pod] : pods_)
      if (ctl::isDeleting(pod) && holds(pod)) return true;
    return false;
  }

 private:
  static bool holds(const Json& pod) {
    const auto phase = ctl::stringAt(pod, "/status/phase");
    return !ctl::stringAt(pod, "/spec/nodeName").empty() && phase != "Succeeded" &&
           phase != "Failed";
  }

  void read(int fd) {
    FILE* in = fdopen(fd, "r");
    std::string object;
    char line[65536];
    while (fgets(line, sizeof line, in)) {
      object += line;
      // kubectl prints each event as one line of JSON (indented over several lines by
      // some versions): an event is complete once what was read parses.
      Json event = Json::parse(object, nullptr, false);
      if (event.is_discarded()) continue;
      object.clear();
      if (event.contains("object")) apply(event);
    }
    fclose(in);
  }

  void apply(const Json& event) {
    const Json& pod = event["object"];
    const std::string key = ctl::stringAt(pod, "/metadata/namespace") + "/" +
                            ctl::stringAt(pod, "/metadata/name") + "/" +
                            ctl::stringAt(pod, "/metadata/uid");
    std::lock_guard lock(mu_);
    ++events_;
    if (event.value("type", "") == "DELETED") {
      pods_.erase(key);
      return;
    }
    pods_[key] = pod;
    if (ctl::isDeleting(pod) && holds(pod)) terminating_.insert(key);
    std::map<std::pair<std::string, int>, std::string> holder;
    std::map<std::string, int> gpus_on;
    for (const auto& [k, p] : pods_) {
      if (!holds(p)) continue;
      const auto node = ctl::stringAt(p, "/spec/nodeName");
      std::stringstream indices(ctl::annotation(p, "troupe.dev/gpu-indices"));
      std::string part;
      while (std::getline(indices, part, ','))
        if (!part.empty()) {
          auto [it, fresh] = holder.emplace(std::make_pair(node, std::stoi(part)), k);
          if (!fresh)
            overlaps_.insert(fmt::format("{} GPU {}: {} and {}", node, part, it->second, k));
        }
      for (const auto& c : p["spec"]["containers"]) {
        const Json limits = c.value("resources", Json::object()).value("limits", Json::object());
        const auto gpus = limits.value("nvidia.com/gpu", std::string());
        if (!gpus.empty()) gpus_on[node] += std::stoi(gpus);
      }
    }
    for (const auto& [node, gpus] : gpus_on)
      if (gpus > gpus_per_node_)
        overlaps_.insert(fmt::format("{} holds pods of {} GPUs of {}", node, gpus, gpus_per_node_));
  }

  const int gpus_per_node_;
  pid_t pid_ = -1;
  std::thread reader_;
  mutable std::mutex mu_;
  std::map<std::string, Json> pods_;
  std::set<std::string> overlaps_;  // each found once, however many events show it
  std::set<std::string> terminating_;
  std::atomic<std::size_t> events_{0};
};

// A job whose pods, like real training pods writing a checkpoint, take `termination`
// seconds to stop once deleted (within their 30 s grace period).
std::string jobYaml(const std::string& name, const std::string& queue, int replicas, int min,
                    int gpus, int termination) {
  return fmt::format(R"(apiVersion: troupe.dev/v1alpha1
kind: TrainingJob
metadata:
  name: {}
  namespace: default
spec:
  queue: {}
  replicas: {}
  minReplicas: {}
  template:
    metadata:
      annotations:
        troupe.dev/sim-termination-seconds: "{}"
    spec:
      terminationGracePeriodSeconds: 30
      containers:
      - name: trainer
        image: trainer:1
        resources:
          limits:
            nvidia.com/gpu: "{}"
---
)",
                     name, queue, replicas, min, termination, gpus);
}

// The GPUs a queue's status says it holds.
std::string allocatedGpus(ClusterFixture& c, const std::string& queue) {
  const Json q = c.get("queue " + queue);
  if (!q.is_object() || !q.contains("status")) return "";
  return q["status"].value("allocated", Json::object()).value("nvidia.com/gpu", "");
}

}  // namespace

TEST_CASE("a reclaim waits for its victims to terminate and never shares a GPU, across a restart",
          "[operator][e2e][reclaim][overlap]") {
  // Four nodes of 8 GPUs. team-a borrows them all: two 8-GPU jobs and an elastic job of
  // two 8-GPU pods (minimum one), every pod taking 4 s to terminate. team-b then takes its
  // guaranteed 16 back with jobs of 4, 4 and 8 GPUs: the victims' GPUs are only theirs
  // once the victims' pods are gone, and a restart of the operator while they terminate
  // changes nothing.
  ClusterFixture c({.nodes = 4, .gpus_per_node = 8});
  const std::string kubeconfig = c.kubectl("config view --raw");
  troupe::testing::TempDir dir;
  const std::string path = dir.path() + "/kubeconfig";
  std::ofstream(path) << kubeconfig;
  PodWatch watch(path, 8);

  c.kubectl("apply -f -", queueYaml("team-a", 16) + queueYaml("team-b", 16));
  c.kubectl("apply -f -", jobYaml("a1", "team-a", 1, 1, 8, 4) +
                              jobYaml("a2", "team-a", 1, 1, 8, 4) +
                              jobYaml("e1", "team-a", 2, 1, 8, 4));
  REQUIRE(c.eventually([&] {
    return c.jobPhase("a1") == "Running" && c.jobPhase("a2") == "Running" &&
           c.jobPhase("e1") == "Running" && ctl::intAt(c.get("tj e1"), "/status/replicas") == 2;
  }));
  c.kubectl("apply -f -", jobYaml("b1", "team-b", 1, 1, 4, 1) +
                              jobYaml("b2", "team-b", 1, 1, 4, 1) +
                              jobYaml("b3", "team-b", 1, 1, 8, 1));
  // The victims terminate: team-b waits for them, saying so, and team-a's queue still
  // counts what they hold.
  REQUIRE(c.eventually([&] { return watch.anyTerminatingNow(); }, std::chrono::seconds(10)));
  bool explained = false;
  std::string message;
  c.eventually(
      [&] {
        for (const char* job : {"b1", "b2", "b3"}) {
          const Json j = c.get("tj " + std::string(job));
          if (ctl::stringAt(j, "/status/pending/reason") == "WaitingForReclaim") {
            message = ctl::stringAt(j, "/status/pending/message");
            explained = message.find("to terminate") != std::string::npos;
          }
        }
        return explained || !watch.anyTerminatingNow();
      },
      std::chrono::seconds(4));
  INFO("status.pending.message: " << message);
  CHECK(explained);
  if (watch.anyTerminatingNow()) CHECK(allocatedGpus(c, "team-a") == "32");
  // The operator restarts while they still terminate.
  c.restartOperator();
  REQUIRE(c.eventually(
      [&] {
        return c.jobPhase("b1") == "Running" && c.jobPhase("b2") == "Running" &&
               c.jobPhase("b3") == "Running";
      },
      std::chrono::seconds(30)));
  // The reclaim took exactly what team-b was owed: team-a still holds 16 GPUs, however
  // many cycles (and operators) saw its victims terminate.
  REQUIRE(c.eventually([&] { return allocatedGpus(c, "team-a") == "16"; }));
  watch.stop();
  INFO(watch.events() << " pod events watched");
  CHECK_FALSE(watch.terminated().empty());
  const auto overlaps = watch.overlaps();
  INFO(fmt::format("{}", fmt::join(overlaps, "\n")));
  CHECK(overlaps.empty());
}
