// Fractional GPUs and MIG slices end to end: `troupe serve` with one node of 2 GPUs and one
// node carved into MIG slices (--mig-nodes 1), driven with the real kubectl. Pods asking
// half a GPU share the two GPUs, never past the whole of one; a whole-GPU pod waits rather
// than take a partly used GPU; a pod asking a nvidia.com/mig-1g.10gb slice runs on the MIG
// node and its queue counts it against its limit; and the nodes' troupe.dev/gpu-holders,
// which `kubectl describe node` shows, follow the pods as they come and go.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "test/support/demo_serve.h"

using namespace troupe::testing;
using Json = nlohmann::json;

namespace {

// Quota is not what binds the GPU pods here (they ask 2.5 GPUs of 4); it binds the slices.
const char* kQueueAndNamespace = R"(apiVersion: v1
kind: Namespace
metadata: {name: ml}
---
apiVersion: troupe.dev/v1alpha1
kind: Queue
metadata: {name: notebooks}
spec:
  resources:
    nvidia.com/gpu: {guaranteed: 4, limit: 4}
    nvidia.com/mig-1g.10gb: {guaranteed: 2, limit: 2}
)";

// A lone pod of queue notebooks that runs for a day of simulated time, with `annotation`
// and `limits` (YAML flow maps).
std::string notebook(const std::string& name, const std::string& annotation,
                     const std::string& limits) {
  return fmt::format(R"(apiVersion: v1
kind: Pod
metadata:
  name: {}
  namespace: ml
  labels: {{troupe.dev/queue: notebooks}}
  annotations: {{troupe.dev/sim-duration-seconds: "86400"{}}}
spec:
  schedulerName: troupe
  restartPolicy: Never
  containers:
  - name: jupyter
    image: registry.example.com/notebook:1
    resources:
      requests: {{cpu: "1", memory: 1Gi}}
      limits: {}
---
)",
                     name, annotation, limits);
}

std::string halfGpu(const std::string& name) {
  return notebook(name, R"(, troupe.dev/gpu-fraction: "0.5")", "{}");
}
std::string wholeGpu(const std::string& name) { return notebook(name, "", "{nvidia.com/gpu: 1}"); }
std::string migSlice(const std::string& name) {
  return notebook(name, "", "{nvidia.com/mig-1g.10gb: 1}");
}

Json getJson(const DemoServe& serve, const std::string& what) {
  auto r = serve.kubectl("get " + what + " -o json");
  const auto brace = r.output.find('{');
  if (r.exit_code != 0 || brace == std::string::npos) return Json::object();
  Json j = Json::parse(r.output.substr(brace), nullptr, false);
  return j.is_object() ? j : Json::object();
}

std::string annotationOf(const Json& object, const std::string& key) {
  const Json& a = object.value("metadata", Json::object()).value("annotations", Json::object());
  return a.value(key, std::string());
}

// The pods of namespace ml by name.
std::map<std::string, Json> podsByName(const DemoServe& serve) {
  std::map<std::string, Json> out;
  for (const auto& p : getJson(serve, "pods -n ml").value("items", Json::array()))
    out[p["metadata"].value("name", "")] = p;
  return out;
}

std::string phaseOf(const std::map<std::string, Json>& pods, const std::string& name) {
  auto it = pods.find(name);
  return it == pods.end() ? std::string() : it->second["status"].value("phase", "");
}

bool allRunning(const std::map<std::string, Json>& pods, const std::vector<std::string>& names) {
  for (const auto& name : names)
    if (phaseOf(pods, name) != "Running") return false;
  return true;
}

// The PodScheduled condition's message of a pod that waits; "" until there is one.
std::string whyWaiting(const DemoServe& serve, const std::string& name) {
  const Json pod = getJson(serve, "pod " + name + " -n ml");
  for (const auto& c : pod.value("status", Json::object()).value("conditions", Json::array()))
    if (c.value("type", "") == "PodScheduled" && c.value("status", "") == "False")
      return c.value("message", "");
  return "";
}

// What the pods on gpu-r1-n1 hold per GPU index, in thousandths: 500 per half-GPU pod,
// 1000 per whole GPU.
std::map<std::string, int> milliPerGpu(const std::map<std::string, Json>& pods) {
  std::map<std::string, int> out;
  for (const auto& [name, p] : pods) {
    if (p["spec"].value("nodeName", "") != "gpu-r1-n1") continue;
    const bool half = annotationOf(p, "troupe.dev/gpu-fraction") == "0.5";
    out[annotationOf(p, "troupe.dev/gpu-indices")] += half ? 500 : 1000;
  }
  return out;
}

// The troupe.dev/gpu-holders gpu-r1-n1 should say for `pods`, built from their own GPU
// indices: "0: ml/a 0.5, ml/b 0.5; 1: ml/c 0.5".
std::string holdersOf(const std::map<std::string, Json>& pods) {
  std::map<std::string, std::vector<std::string>> by_gpu;  // pods by name: a sorted order
  for (const auto& [name, p] : pods) {
    if (p["spec"].value("nodeName", "") != "gpu-r1-n1") continue;
    const bool half = annotationOf(p, "troupe.dev/gpu-fraction") == "0.5";
    by_gpu[annotationOf(p, "troupe.dev/gpu-indices")].push_back("ml/" + name +
                                                                (half ? " 0.5" : ""));
  }
  std::vector<std::string> entries;
  for (const auto& [gpu, names] : by_gpu)
    entries.push_back(fmt::format("{}: {}", gpu, fmt::join(names, ", ")));
  return fmt::format("{}", fmt::join(entries, "; "));
}

std::string nodeHolders(const DemoServe& serve, const std::string& node) {
  return annotationOf(getJson(serve, "node " + node), "troupe.dev/gpu-holders");
}

// The holders annotation follows the pods within a few seconds, not at the next periodic
// node update.
constexpr auto kFollows = std::chrono::seconds(5);

}  // namespace

TEST_CASE("half-GPU pods share GPUs, whole-GPU pods wait for a whole one, MIG slices count",
          "[operator][e2e][fractional-gpu]") {
  DemoServeOptions options;
  options.args = {"--nodes", "1",           "--racks", "1",           "--gpus-per-node",
                  "2",       "--mig-nodes", "1",       "--sim-speed", "100"};
  DemoServe serve(options);
  REQUIRE(serve.start());
  auto applied = serve.kubectl("apply -f -", kQueueAndNamespace);
  INFO(applied.output);
  REQUIRE(applied.exit_code == 0);

  // Three half-GPU pods and three pods of one slice each, of a queue limited to 2 slices:
  // two of the slice pods run, on the MIG node.
  applied =
      serve.kubectl("apply -f -", halfGpu("half-1") + halfGpu("half-2") + halfGpu("half-3") +
                                      migSlice("mig-1") + migSlice("mig-2") + migSlice("mig-3"));
  INFO(applied.output);
  REQUIRE(applied.exit_code == 0);
  std::map<std::string, Json> pods;
  std::vector<std::string> mig_running;
  std::string mig_waiting;
  const bool running = DemoServe::eventually([&] {
    pods = podsByName(serve);
    mig_running.clear();
    for (const char* name : {"mig-1", "mig-2", "mig-3"})
      if (phaseOf(pods, name) == "Running")
        mig_running.push_back(name);
      else
        mig_waiting = name;
    return allRunning(pods, {"half-1", "half-2", "half-3"}) && mig_running.size() == 2;
  });
  INFO(Json(pods).dump(1));
  REQUIRE(running);

  // Best fit: the first two halves fill GPU 0 (500 + 500 = 1000), the third opens GPU 1.
  CHECK(milliPerGpu(pods) == std::map<std::string, int>{{"0", 1000}, {"1", 500}});
  for (const auto& name : mig_running) CHECK(pods[name]["spec"].value("nodeName", "") == "mig-n1");

  // The third slice would take notebooks to 2 + 1 = 3 of its limit 2: it waits, and says
  // so in the slice's own name.
  std::string mig_says;
  CHECK(
      DemoServe::eventually([&] { return !(mig_says = whyWaiting(serve, mig_waiting)).empty(); }));
  CHECK(mig_says ==
        "QueueAtLimit: notebooks would hold 3 of its limit 2 nvidia.com/mig-1g.10gb (holds 2, "
        "this job asks 1); no victim can be taken: no running gang may be preempted for it");
  CHECK(pods[mig_waiting]["spec"].value("nodeName", "") == "");

  // A whole-GPU pod: gpu-r1-n1 has 2 GPUs and no whole-GPU pod, but GPU 0 is full and GPU 1
  // half used, so no GPU is whole for it. It waits, unplaced, as the engine says.
  applied = serve.kubectl("apply -f -", wholeGpu("whole"));
  REQUIRE(applied.exit_code == 0);
  std::string whole_says;
  CHECK(DemoServe::eventually([&] { return !(whole_says = whyWaiting(serve, "whole")).empty(); }));
  CHECK_THAT(whole_says, Catch::StartsWith("NoPlacement: "));
  std::this_thread::sleep_for(std::chrono::seconds(2));  // ~200 s of simulated time
  CHECK(getJson(serve, "pod whole -n ml")["spec"].value("nodeName", "") == "");

  // A fourth half fills GPU 1: four halves on two GPUs, 1000 thousandths each and no more.
  REQUIRE(serve.kubectl("apply -f -", halfGpu("half-4")).exit_code == 0);
  REQUIRE(DemoServe::eventually([&] {
    pods = podsByName(serve);
    return allRunning(pods, {"half-4"});
  }));
  CHECK(milliPerGpu(pods) == std::map<std::string, int>{{"0", 1000}, {"1", 1000}});
  CHECK(pods["whole"]["spec"].value("nodeName", "") == "");

  // The nodes say who holds what; kubectl describe node shows it.
  const std::string want_holders = holdersOf(pods);
  CHECK(want_holders.find("0: ml/half-") == 0);
  std::string holders;
  CHECK(DemoServe::eventually(
      [&] { return (holders = nodeHolders(serve, "gpu-r1-n1")) == want_holders; }, kFollows));
  CHECK(holders == want_holders);
  CHECK_THAT(serve.kubectl("describe node gpu-r1-n1").output,
             Catch::Contains("troupe.dev/gpu-holders: " + want_holders));
  const std::string want_mig_holders =
      fmt::format("nvidia.com/mig-1g.10gb: ml/{} 1, ml/{} 1", mig_running[0], mig_running[1]);
  CHECK(DemoServe::eventually([&] { return nodeHolders(serve, "mig-n1") == want_mig_holders; },
                              kFollows));
  CHECK_THAT(serve.kubectl("describe node mig-n1").output,
             Catch::Contains("troupe.dev/gpu-holders: " + want_mig_holders));

  // The queue counts 4 x 0.5 = 2 GPUs (2000 thousandths) and the two slices.
  Json allocated;
  CHECK(DemoServe::eventually([&] {
    allocated = getJson(serve, "queue notebooks")["status"].value("allocated", Json::object());
    return allocated.value("nvidia.com/gpu", "") == "2";
  }));
  INFO(allocated.dump());
  CHECK(allocated.value("troupe.dev/gpu-milli", "") == "2k");
  CHECK(allocated.value("nvidia.com/mig-1g.10gb", "") == "2");

  // The two halves of GPU 0 end: GPU 0 is whole again and the whole-GPU pod takes it, never
  // GPU 1, which the other two halves still share. A slice pod ends: the waiting one runs.
  std::vector<std::string> on_gpu_0;
  for (const auto& [name, p] : pods)
    if (annotationOf(p, "troupe.dev/gpu-indices") == "0") on_gpu_0.push_back(name);
  REQUIRE(on_gpu_0.size() == 2);
  const auto deleted = serve.kubectl(
      fmt::format("delete pod -n ml {} {} {}", on_gpu_0[0], on_gpu_0[1], mig_running[0]));
  INFO(deleted.output);
  REQUIRE(deleted.exit_code == 0);
  REQUIRE(DemoServe::eventually([&] {
    pods = podsByName(serve);
    return allRunning(pods, {"whole", mig_waiting});
  }));
  CHECK(annotationOf(pods["whole"], "troupe.dev/gpu-indices") == "0");
  CHECK(milliPerGpu(pods) == std::map<std::string, int>{{"0", 1000}, {"1", 1000}});
  CHECK(DemoServe::eventually(
      [&] { return (holders = nodeHolders(serve, "gpu-r1-n1")) == holdersOf(pods); }, kFollows));
  CHECK(holders.find("0: ml/whole; 1: ml/half-") == 0);
  std::vector<std::string> now_holding = {mig_running[1], mig_waiting};
  std::sort(now_holding.begin(), now_holding.end());
  CHECK(DemoServe::eventually(
      [&] {
        return nodeHolders(serve, "mig-n1") ==
               fmt::format("nvidia.com/mig-1g.10gb: ml/{} 1, ml/{} 1", now_holding[0],
                           now_holding[1]);
      },
      kFollows));

  // The whole-GPU pod goes, and nothing takes its place: GPU 0 drops from the holders.
  REQUIRE(serve.kubectl("delete pod -n ml whole").exit_code == 0);
  pods = podsByName(serve);
  REQUIRE(pods.count("whole") == 0);
  CHECK(DemoServe::eventually(
      [&] { return (holders = nodeHolders(serve, "gpu-r1-n1")) == holdersOf(pods); }, kFollows));
  CHECK(holders.find("1: ml/half-") == 0);
}
