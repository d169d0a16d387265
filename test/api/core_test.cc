#include <catch2/catch.hpp>

#include "api/core/node.h"
#include "api/core/pod.h"
#include "api/core/priority_class.h"
#include "api/yaml.h"

namespace troupe::api::core {
namespace {

using nlohmann::json;

Pod pod(const std::string& yaml) {
  auto doc = parseYaml(yaml);
  REQUIRE(doc.ok());
  std::vector<Error> errors;
  Pod p = Pod::fromJson(*doc, errors);
  REQUIRE(errors.empty());
  return p;
}

TEST_CASE("a pod's requests add containers, take the largest init container, add overhead",
          "[api][core][pod]") {
  Pod p = pod(R"(
apiVersion: v1
kind: Pod
metadata: {name: w-0, namespace: team-a, labels: {troupe.dev/pod-group: g}}
spec:
  schedulerName: troupe
  overhead: {cpu: 100m}
  initContainers:
  - {name: fetch, image: x, resources: {requests: {cpu: "4", memory: 1Gi}}}
  containers:
  - name: trainer
    image: x
    resources:
      requests: {cpu: "2", memory: 8Gi}
      limits: {nvidia.com/gpu: 4}
  - name: sidecar
    image: x
    resources: {requests: {cpu: 500m, memory: 512Mi}}
status:
  phase: Running
  conditions: [{type: Ready, status: "True"}]
)");
  auto requests = p.spec.requests();
  REQUIRE(requests.ok());
  // cpu: max(2 + 0.5, 4) + 0.1 = 4.1; memory: max(8Gi + 512Mi, 1Gi) = 8704Mi
  CHECK(requests->at("cpu").milliValue() == 4100);
  CHECK(requests->at("memory").toString() == "8704Mi");
  // gpu: only a limit, which stands in for the request
  CHECK(requests->at("nvidia.com/gpu").value() == 4);
  auto limits = p.spec.limits();
  REQUIRE(limits.ok());
  CHECK(limits->size() == 1);
  CHECK(p.isReady());
  CHECK(p.spec.scheduler_name == "troupe");
  CHECK(p.metadata.labels.at("troupe.dev/pod-group") == "g");
}

TEST_CASE("node selectors, required affinity and taints decide whether a pod fits a node",
          "[api][core][pod]") {
  Pod p = pod(R"(
metadata: {name: p}
spec:
  containers: [{name: c, image: x}]
  nodeSelector: {troupe.dev/block: b1}
  tolerations:
  - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - {key: troupe.dev/rack, operator: In, values: [r1, r2]}
        - matchExpressions:
          - {key: gpu-count, operator: Gt, values: ["7"]}
)");
  std::map<std::string, std::string> r1 = {{"troupe.dev/block", "b1"}, {"troupe.dev/rack", "r1"}};
  std::map<std::string, std::string> r3 = {{"troupe.dev/block", "b1"}, {"troupe.dev/rack", "r3"}};
  std::map<std::string, std::string> r3_big = r3;
  r3_big["gpu-count"] = "8";
  std::map<std::string, std::string> other_block = {{"troupe.dev/block", "b2"},
                                                    {"troupe.dev/rack", "r1"}};
  Taint gpu_taint{"nvidia.com/gpu", "", "NoSchedule"};
  Taint not_ready{"node.kubernetes.io/not-ready", "", "NoSchedule"};
  Taint soft{"x", "y", "PreferNoSchedule"};
  CHECK(p.spec.fitsNode(r1, "n1", {gpu_taint, soft}));
  CHECK_FALSE(p.spec.fitsNode(r3, "n1", {}));           // rack r3 matches neither term
  CHECK(p.spec.fitsNode(r3_big, "n1", {}));             // ... unless the second term (8 > 7) holds
  CHECK_FALSE(p.spec.fitsNode(other_block, "n1", {}));  // nodeSelector
  CHECK_FALSE(p.spec.fitsNode(r1, "n1", {not_ready}));  // untolerated NoSchedule taint
}

TEST_CASE("a node reports readiness, capacity and its GPU topology", "[api][core][node]") {
  auto doc = parseYaml(R"(
apiVersion: v1
kind: Node
metadata:
  name: gpu-r1-n1
  labels: {troupe.dev/rack: r1, troupe.dev/block: b1}
  annotations:
    troupe.dev/gpu-topology: '{"nvlinkIslands":[[0,1,2,3],[4,5,6,7]],"numa":[[0,1,2,3],[4,5,6,7]]}'
spec:
  taints: [{key: dedicated, value: training, effect: NoSchedule}]
status:
  capacity: {nvidia.com/gpu: "8", cpu: "96", memory: 1Ti, pods: "110"}
  allocatable: {nvidia.com/gpu: "8", cpu: 95500m, memory: 1000Gi, pods: "110"}
  conditions: [{type: Ready, status: "True"}]
)");
  REQUIRE(doc.ok());
  std::vector<Error> errors;
  Node n = Node::fromJson(*doc, errors);
  REQUIRE(errors.empty());
  CHECK(n.isSchedulable());
  CHECK(n.label("troupe.dev/rack") == "r1");
  CHECK(n.allocatable.at("cpu").milliValue() == 95500);
  CHECK(n.capacity.at("memory").toString() == "1Ti");
  REQUIRE(n.taints.size() == 1);
  auto topology = n.gpuTopology();
  REQUIRE(topology.has_value());
  REQUIRE(topology->ok());
  CHECK((*topology)->nvlink_islands.size() == 2);

  n.unschedulable = true;
  CHECK_FALSE(n.isSchedulable());
}

TEST_CASE("decoding collects every type error with its path", "[api][core]") {
  auto doc = parseYaml(R"(
metadata: {name: p, labels: {a: 1}}
spec:
  containers:
  - {name: c, image: x, resources: {requests: {cpu: lots}}}
  nodeSelector: []
  priority: "high"
)");
  REQUIRE(doc.ok());
  std::vector<Error> errors;
  Pod::fromJson(*doc, errors);
  std::vector<std::string> paths;
  for (const auto& e : errors) paths.push_back(e.field_path);
  std::vector<std::string> want = {"metadata.labels.a",
                                   "spec.containers[0].resources.requests[cpu]",
                                   "spec.nodeSelector", "spec.priority"};
  CHECK(paths == want);
}

TEST_CASE("a priority class gives its value and policy", "[api][core]") {
  std::vector<Error> errors;
  auto pc = PriorityClass::fromJson(
      {{"metadata", {{"name", "high"}}}, {"value", 1000}, {"preemptionPolicy", "Never"}}, errors);
  CHECK(errors.empty());
  CHECK(pc.value == 1000);
  CHECK(pc.preemption_policy == "Never");
  PriorityClass::fromJson({{"metadata", {{"name", "x"}}}}, errors);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].field_path == "value");
}

}  // namespace
}  // namespace troupe::api::core
