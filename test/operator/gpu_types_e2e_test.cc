// GPU types end to end: `troupe serve` on its built-in two-type cluster (4 nodes of 8 GPUs
// in 2 racks: rack 1 H100s, rack 2 A100s, 16 of each), the GPUTypes of
// examples/03-gpu-types.yaml, driven with the real kubectl. Jobs that name no type run on
// either; a queue guaranteed H100s takes them back from a borrower, leaving its A100 jobs
// alone; a job that accepts both types runs on the other when its preferred is full, or
// preempts for it, as its queue's gpuTypeFungibility says.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "test/support/demo_serve.h"

using namespace troupe::testing;
using Json = nlohmann::json;

namespace {

const std::string kExamples = std::string(TROUPE_SOURCE_DIR) + "/examples";

// One pod of 8 GPUs for a day of simulated time, accepting `types` (YAML list, "" for any).
std::string job(const std::string& ns, const std::string& name, const std::string& types,
                bool preemptible = true) {
  return fmt::format(R"(apiVersion: troupe.dev/v1alpha1
kind: TrainingJob
metadata: {{name: {}, namespace: {}}}
spec:
  queue: {}
  {}
  preemptible: {}
  replicas: 1
  template:
    metadata:
      annotations: {{troupe.dev/sim-duration-seconds: "86400"}}
    spec:
      restartPolicy: Never
      containers:
      - name: trainer
        image: registry.example.com/trainer:1
        resources:
          limits: {{nvidia.com/gpu: 8}}
---
)",
                     name, ns, ns, types.empty() ? "" : "gpuTypes: " + types,
                     preemptible ? "true" : "false");
}

// `troupe serve` with the GPUTypes and queues `queues` applied; kubectl helpers.
class TypedCluster {
 public:
  explicit TypedCluster(const std::string& queues) {
    DemoServeOptions options;
    options.args.insert(options.args.end(), {"--sim-speed", "100"});
    serve_ = std::make_unique<DemoServe>(options);
    REQUIRE(serve_->start());
    kubectl("apply -f " + kExamples + "/03-gpu-types.yaml");
    kubectl("apply -f -", queues);
  }
  ~TypedCluster() { serve_->stop(); }

  std::string kubectl(const std::string& args, const std::string& input = "") {
    auto r = serve_->kubectl(args, input);
    INFO("kubectl " << args << "\n" << r.output);
    CHECK(r.exit_code == 0);
    return r.output;
  }
  std::string field(const std::string& what, const std::string& path) {
    return serve_->kubectl("get " + what + " -o jsonpath='{" + path + "}'").output;
  }
  std::string phase(const std::string& ns, const std::string& name) {
    return field("tj " + name + " -n " + ns, ".status.phase");
  }
  std::string gpuType(const std::string& ns, const std::string& name) {
    return field("tj " + name + " -n " + ns, ".status.gpuType");
  }
  bool allRunning(const std::string& ns, const std::vector<std::string>& names) {
    return DemoServe::eventually([&] {
      for (const auto& name : names)
        if (phase(ns, name) != "Running") return false;
      return true;
    });
  }

 private:
  std::unique_ptr<DemoServe> serve_;
};

std::string namespaces(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names)
    out += fmt::format("apiVersion: v1\nkind: Namespace\nmetadata: {{name: {}}}\n---\n", n);
  return out;
}

// The top queue of both tests: the whole cluster, 32 GPUs, 16 of each type.
const std::string kOrg = R"(apiVersion: troupe.dev/v1alpha1
kind: Queue
metadata: {name: org}
spec:
  resources:
    nvidia.com/gpu:
      guaranteed: 32
      gpuTypes: [{name: h100, guaranteed: 16}, {name: a100, guaranteed: 16}]
---
)";

}  // namespace

TEST_CASE("jobs of no type run on both, a queue guaranteed H100s takes them back, A100s alone",
          "[operator][e2e][gpu-types]") {
  // org holds the cluster: 32 GPUs, 16 of each type. team-h is guaranteed the 16 H100s;
  // team-b is guaranteed nothing and borrows.
  TypedCluster c(namespaces({"team-h", "team-b"}) + kOrg + R"(apiVersion: troupe.dev/v1alpha1
kind: Queue
metadata: {name: team-h}
spec:
  parent: org
  namespaces: [team-h]
  resources:
    nvidia.com/gpu:
      guaranteed: 16
      gpuTypes: [{name: h100, guaranteed: 16}]
---
apiVersion: troupe.dev/v1alpha1
kind: Queue
metadata: {name: team-b}
spec:
  parent: org
  namespaces: [team-b]
)");

  // team-b's four 8-GPU jobs name no type: they accept a100 then h100 (by name). Two fill
  // the 16 A100s; the third finds a100 full (a preemption, which whenCanPreempt
  // TryNextType passes over) and runs on h100, as does the fourth: all 32 GPUs run.
  const std::vector<std::string> b_jobs = {"b-0", "b-1", "b-2", "b-3"};
  std::string all;
  for (const auto& name : b_jobs) all += job("team-b", name, "");
  c.kubectl("apply -f -", all);
  REQUIRE(c.allRunning("team-b", b_jobs));
  std::vector<std::string> on_h100, on_a100;
  for (const auto& name : b_jobs) {
    const std::string type = c.gpuType("team-b", name);
    (type == "h100" ? on_h100 : on_a100).push_back(name);
    // The pod says the type too, and its node is of that type (rack 1 H100s, rack 2 A100s).
    CHECK(c.field("pod " + name + "-0 -n team-b", ".metadata.annotations.troupe\\.dev/gpu-type") ==
          type);
    CHECK(c.field("pod " + name + "-0 -n team-b", ".spec.nodeName")
              .rfind(type == "h100" ? "gpu-r1-" : "gpu-r2-", 0) == 0);
  }
  // 2 jobs x 8 = 16 on each type.
  CHECK(on_h100.size() == 2);
  CHECK(on_a100.size() == 2);
  REQUIRE(on_h100.size() == 2);

  // team-h asks 8 of its 16 guaranteed H100s: one of team-b's H100 jobs makes room; the
  // A100 jobs, though team-b borrows those too, are not touched.
  c.kubectl("apply -f -", job("team-h", "h-0", "[h100]"));
  REQUIRE(DemoServe::eventually([&] { return c.phase("team-h", "h-0") == "Running"; }));
  CHECK(c.gpuType("team-h", "h-0") == "h100");
  int h100_running = 0;
  std::string preempted;
  for (const auto& name : on_h100) {
    const bool running = c.phase("team-b", name) == "Running";
    h100_running += running ? 1 : 0;
    if (!running) preempted = name;
  }
  CHECK(h100_running == 1);
  for (const auto& name : on_a100) CHECK(c.phase("team-b", name) == "Running");
  // The job that gave way waits, and says for which type with that type's numbers: 8 of
  // the type, as nothing of either type is free to it.
  REQUIRE_FALSE(preempted.empty());
  REQUIRE(DemoServe::eventually([&] {
    const std::string type = c.field("tj " + preempted + " -n team-b", ".status.pending.gpuType");
    return !type.empty() && c.field("tj " + preempted + " -n team-b",
                                    ".status.pending.request.gpu\\.troupe\\.dev/" + type) == "8";
  }));
  std::printf("gpu types: %s waits: %s\n", preempted.c_str(),
              c.field("tj " + preempted + " -n team-b", ".status.pending.message").c_str());
  // The queues count the types apart: team-h holds 8 H100s, team-b 8 H100s and 16 A100s.
  REQUIRE(DemoServe::eventually(
      [&] { return c.field("queue team-h", ".status.allocated.gpu\\.troupe\\.dev/h100") == "8"; }));
  CHECK(c.field("queue team-b", ".status.allocated.gpu\\.troupe\\.dev/a100") == "16");
}

TEST_CASE("a job that prefers H100s runs on A100s under TryNextType, preempts under Preempt",
          "[operator][e2e][gpu-types]") {
  // team-t and team-s are each guaranteed 8 H100s; team-t passes to the next type before
  // preempting (the default, TryNextType), team-s preempts for the type it prefers
  // (Preempt). lab is guaranteed nothing.
  TypedCluster c(namespaces({"team-t", "team-s", "lab"}) + kOrg + R"(apiVersion: troupe.dev/v1alpha1
kind: Queue
metadata: {name: team-t}
spec:
  parent: org
  namespaces: [team-t]
  resources:
    nvidia.com/gpu:
      guaranteed: 8
      gpuTypes: [{name: h100, guaranteed: 8}]
---
apiVersion: troupe.dev/v1alpha1
kind: Queue
metadata: {name: team-s}
spec:
  parent: org
  namespaces: [team-s]
  gpuTypeFungibility: {whenCanPreempt: Preempt}
  resources:
    nvidia.com/gpu:
      guaranteed: 8
      gpuTypes: [{name: h100, guaranteed: 8}]
---
apiVersion: troupe.dev/v1alpha1
kind: Queue
metadata: {name: lab}
spec:
  parent: org
  namespaces: [lab]
)");

  // lab borrows all 16 H100s; the A100s stay free. lab-2 may not be preempted.
  c.kubectl("apply -f -", job("lab", "lab-1", "[h100]") + job("lab", "lab-2", "[h100]", false));
  REQUIRE(c.allRunning("lab", {"lab-1", "lab-2"}));

  // team-t's job prefers H100s: none is free, and taking them back is a preemption, which
  // TryNextType passes over for a100, where 8 of the 16 free fit (borrowing: team-t is
  // guaranteed no A100, and whenCanBorrow Borrow takes it). Nobody is preempted.
  c.kubectl("apply -f -", job("team-t", "t-0", "[h100, a100]"));
  REQUIRE(DemoServe::eventually([&] { return c.phase("team-t", "t-0") == "Running"; }));
  CHECK(c.gpuType("team-t", "t-0") == "a100");
  CHECK(c.phase("lab", "lab-1") == "Running");
  CHECK(c.phase("lab", "lab-2") == "Running");

  // team-s's job, the same ask, with 8 A100s still free: Preempt searches h100 first.
  // team-s holds 0 of its 8 guaranteed H100s, lab 16 past its 0: lab-1 (the one that may
  // be preempted) gives way, and s-0 runs on H100s.
  c.kubectl("apply -f -", job("team-s", "s-0", "[h100, a100]"));
  REQUIRE(DemoServe::eventually([&] { return c.phase("team-s", "s-0") == "Running"; }));
  CHECK(c.gpuType("team-s", "s-0") == "h100");
  CHECK(c.phase("lab", "lab-1") != "Running");
  CHECK(c.phase("lab", "lab-2") == "Running");
  CHECK(c.gpuType("team-t", "t-0") == "a100");
}
