// `kubectl logs` in standalone mode: the simulated container's log, rendered from its pod,
// with the options kubectl sends and the real server's errors; `-f` streams until the
// container ends.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <string>
#include <thread>

#include "apiserver/handlers/container_log.h"
#include "test/support/command.h"
#include "test/support/sim_serve.h"

namespace troupe::testing {
namespace {

using json = nlohmann::json;
using apiserver::containerState;
using apiserver::simulatedContainerLog;

json trainerPod() {
  return json::parse(R"({
    "metadata": {"name": "llama-0", "namespace": "team-a",
                 "annotations": {"troupe.dev/gpu-indices": "0,1,2,3",
                                 "troupe.dev/sim-duration-seconds": "600"}},
    "spec": {"nodeName": "gpu-r1-n1",
             "initContainers": [{"name": "fetch", "image": "busybox"}],
             "containers": [{"name": "trainer", "image": "llama:1.0",
                             "env": [{"name": "RANK", "value": "0"},
                                     {"name": "WORLD_SIZE", "value": "4"},
                                     {"name": "POD_IP", "valueFrom": {"fieldRef": {}}}]},
                            {"name": "sidecar", "image": "logger"}]},
    "status": {
      "initContainerStatuses": [{"name": "fetch", "state": {"terminated": {
          "exitCode": 0, "reason": "Completed", "startedAt": "2026-11-24T10:00:00Z",
          "finishedAt": "2026-11-24T10:00:00Z"}}}],
      "containerStatuses": [
        {"name": "trainer", "state": {"running": {"startedAt": "2026-11-24T10:00:01Z"}}},
        {"name": "sidecar", "state": {"waiting": {"reason": "ContainerCreating"}}}]}
  })");
}

std::vector<std::string> texts(const std::vector<apiserver::LogLine>& lines) {
  std::vector<std::string> out;
  for (const auto& l : lines) out.push_back(l.text);
  return out;
}

TEST_CASE("a simulated container's log says where it runs, with what, and how it ends",
          "[apiserver][logs]") {
  json pod = trainerPod();
  const auto running = simulatedContainerLog(pod, "trainer");
  CHECK(texts(running) ==
        std::vector<std::string>{
            "troupe simulated kubelet: container \"trainer\" (image llama:1.0) started on node "
            "gpu-r1-n1",
            "troupe simulated kubelet: GPUs 0,1,2,3 of node gpu-r1-n1",
            "troupe simulated kubelet: env RANK=0", "troupe simulated kubelet: env WORLD_SIZE=4",
            "troupe simulated kubelet: runs 600 simulated seconds "
            "(troupe.dev/sim-duration-seconds), then exits with code 0"});
  for (const auto& line : running) CHECK(line.time == "2026-11-24T10:00:01.000000000Z");
  CHECK(containerState(pod, "trainer") == "running");

  // Deleted while it runs: one more line, stamped when the deletion was asked for.
  json deleting = pod;
  deleting["metadata"]["deletionTimestamp"] = "2026-11-24T10:02:30Z";
  deleting["metadata"]["deletionGracePeriodSeconds"] = 30;
  const auto stopping = simulatedContainerLog(deleting, "trainer");
  REQUIRE(stopping.size() == running.size() + 1);
  CHECK(
      stopping.back().text ==
      "troupe simulated kubelet: pod deleted, stopping container \"trainer\" (grace period 30 s)");
  CHECK(stopping.back().time == "2026-11-24T10:02:00.000000000Z");

  // Not started: no lines, and the waiting reason for the error the server gives.
  std::string reason;
  CHECK(simulatedContainerLog(pod, "sidecar").empty());
  CHECK(containerState(pod, "sidecar", &reason) == "waiting");
  CHECK(reason == "ContainerCreating");
  CHECK(simulatedContainerLog(pod, "nope").empty());
  CHECK(containerState(pod, "nope").empty());
  CHECK(texts(simulatedContainerLog(pod, "fetch")).front() ==
        "troupe simulated kubelet: init container \"fetch\" (image busybox) started on node "
        "gpu-r1-n1");

  // Terminated: the same start lines, then the exit, stamped when it finished.
  pod["status"]["containerStatuses"][0]["state"] = json::parse(R"({"terminated": {
      "exitCode": 137, "reason": "Error", "message": "killed by a node failure",
      "startedAt": "2026-11-24T10:00:01Z", "finishedAt": "2026-11-24T10:05:00Z"}})");
  const auto ended = simulatedContainerLog(pod, "trainer");
  REQUIRE(ended.size() == running.size() + 1);
  CHECK(ended.back().text ==
        "troupe simulated kubelet: container \"trainer\" exited with code 137 (Error): killed by "
        "a node failure");
  CHECK(ended.back().time == "2026-11-24T10:05:00.000000000Z");
  CHECK(ended.front().time == "2026-11-24T10:00:01.000000000Z");
  CHECK(containerState(pod, "trainer") == "terminated");

  // Without a duration the container runs until its pod is deleted.
  pod["metadata"]["annotations"].erase("troupe.dev/sim-duration-seconds");
  CHECK(simulatedContainerLog(pod, "trainer")[4].text ==
        "troupe simulated kubelet: runs until the pod is deleted (no "
        "troupe.dev/sim-duration-seconds annotation)");
}

bool logHas(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_CASE(
    "kubectl logs reads a simulated pod's log, follows it to the end, and gets the "
    "real server's errors",
    "[apiserver][logs][kubectl]") {
  // One node and its simulated kubelet, at the speed of the clock.
  SimServe server(R"(apiVersion: v1
kind: Node
metadata:
  name: gpu-r1-n1
status:
  capacity: {nvidia.com/gpu: "8"}
  allocatable: {nvidia.com/gpu: "8"}
)",
                  1.0);
  REQUIRE(server.start());
  const std::string dir = server.dir();
  auto kubectl = [&](const std::string& args) {
    auto r = testing::kubectl(server, args);
    UNSCOPED_INFO("kubectl " << args << "\n=> rc " << r.exit_code << "\n" << r.output);
    return r;
  };
  // Bound at creation (spec.nodeName), so the simulated kubelet runs it without a scheduler.
  std::ofstream(dir + "/pods.yaml") << R"(apiVersion: v1
kind: Pod
metadata:
  name: short
  namespace: default
  annotations: {troupe.dev/sim-duration-seconds: "4", troupe.dev/sim-exit-code: "3"}
spec:
  nodeName: gpu-r1-n1
  restartPolicy: Never
  containers:
  - name: main
    image: busybox
    env: [{name: EPOCHS, value: "3"}]
---
apiVersion: v1
kind: Pod
metadata:
  name: long
  namespace: default
spec:
  nodeName: gpu-r1-n1
  containers:
  - name: main
    image: busybox
---
apiVersion: v1
kind: Pod
metadata:
  name: unbound
  namespace: default
spec:
  schedulerName: troupe
  containers:
  - name: main
    image: busybox
)";
  REQUIRE(kubectl("apply -f " + dir + "/pods.yaml").exit_code == 0);
  REQUIRE(kubectl("wait --for=condition=Ready pod/short pod/long --timeout=30s").exit_code == 0);

  // Followed while it runs: the start lines, then the exit line once the kubelet ends it.
  auto followed = kubectl("logs -f short");
  CHECK(followed.exit_code == 0);
  CHECK(logHas(followed.output,
               "container \"main\" (image busybox) started on node gpu-r1-n1\n"
               "troupe simulated kubelet: env EPOCHS=3\n"));
  CHECK(logHas(followed.output, "container \"main\" exited with code 3 (Error)\n"));
  CHECK(kubectl("get pod short -o jsonpath={.status.phase}").output == "Failed");

  // Followed while it is deleted: the stop line, then the stream ends with the pod.
  CommandResult deleted;
  std::thread deleter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    deleted = testing::kubectl(server, "delete pod long --wait=false");
  });
  auto stopped = kubectl("logs -f long");
  deleter.join();
  CHECK(deleted.exit_code == 0);
  CHECK(stopped.exit_code == 0);
  CHECK(logHas(stopped.output, "runs until the pod is deleted"));
  CHECK(logHas(stopped.output, "pod deleted, stopping container \"main\" (grace period 30 s)\n"));

  auto tail = kubectl("logs short --tail=1 --timestamps");
  CHECK(tail.exit_code == 0);
  CHECK(std::count(tail.output.begin(), tail.output.end(), '\n') == 1);
  CHECK(logHas(tail.output, "Z troupe simulated kubelet: container \"main\" exited with code 3"));
  CHECK(kubectl("logs short --limit-bytes=9").output == "troupe si");

  // Not on a node yet: an empty log, as the real server answers.
  auto unbound = kubectl("logs unbound");
  CHECK(unbound.exit_code == 0);
  CHECK(unbound.output.empty());

  // The server's own errors, as Status bodies.
  const std::string log = "get --raw /api/v1/namespaces/default/pods/short/log";
  CHECK(
      logHas(kubectl(log + "?container=nope").output, "container nope is not valid for pod short"));
  CHECK(logHas(kubectl(log + "?previous=true").output,
               "previous terminated container \"main\" in pod \"short\" not found"));
  CHECK(logHas(kubectl(log + "?tailLines=-1").output,
               "PodLogOptions \"short\" is invalid: tailLines: Invalid value: -1: must be "
               "greater than or equal to 0"));
  CHECK(logHas(kubectl("logs nothing-here").output, "pods \"nothing-here\" not found"));
  CHECK(logHas(
      kubectl("get --raw /api/v1").output,
      R"({"kind":"Pod","name":"pods/log","namespaced":true,"singularName":"","verbs":["get"]})"));
  CHECK(server.stop() == 0);
}

}  // namespace
}  // namespace troupe::testing
