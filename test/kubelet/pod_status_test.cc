#include <catch2/catch.hpp>

#include "common/rfc3339.h"
#include "kubelet/pod_status.h"

using namespace troupe;
using namespace troupe::kubelet;
using json = nlohmann::json;

namespace {

// A pod as the server holds it after binding: defaulted, PodScheduled True.
json boundPod() {
  return json::parse(R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "llama-a-worker-0", "namespace": "team-a",
                 "uid": "de85b479-35b8-4c25-90e8-2176b34979c4", "resourceVersion": "7"},
    "spec": {"nodeName": "gpu-r1-n1", "restartPolicy": "Never",
             "initContainers": [{"name": "fetch", "image": "busybox:1.36"}],
             "containers": [{"name": "trainer", "image": "example.com/trainer:1.1"},
                            {"name": "sidecar", "image": "example.com/log:2"}]},
    "status": {"phase": "Pending", "qosClass": "BestEffort",
               "conditions": [{"type": "PodScheduled", "status": "True", "lastProbeTime": null,
                               "lastTransitionTime": "2026-11-23T02:00:00Z"}]}
  })");
}

Time at(const char* text) { return parseRfc3339(text).value(); }

json conditionOf(const json& status, const std::string& type) {
  for (const auto& c : status["conditions"])
    if (c["type"] == type) return c;
  return nullptr;
}

std::vector<std::string> conditionTypes(const json& status) {
  std::vector<std::string> types;
  for (const auto& c : status["conditions"]) types.push_back(c["type"]);
  return types;
}

}  // namespace

TEST_CASE("a started pod reports Running the way a kubelet does", "[kubelet][pod-status]") {
  json status = runningStatus(boundPod(), at("2026-11-23T02:00:01Z"));
  CHECK(status["phase"] == "Running");
  CHECK(status["qosClass"] == "BestEffort");  // not the kubelet's: kept
  CHECK(status["startTime"] == "2026-11-23T02:00:01Z");
  CHECK(conditionTypes(status) ==
        std::vector<std::string>{"Initialized", "Ready", "ContainersReady", "PodScheduled"});
  for (const char* type : {"Initialized", "Ready", "ContainersReady"}) {
    CHECK(conditionOf(status, type)["status"] == "True");
    CHECK(conditionOf(status, type)["lastTransitionTime"] == "2026-11-23T02:00:01Z");
    CHECK(conditionOf(status, type)["lastProbeTime"].is_null());
  }
  // Binding wrote PodScheduled; its time is kept.
  CHECK(conditionOf(status, "PodScheduled")["lastTransitionTime"] == "2026-11-23T02:00:00Z");
  REQUIRE(status["containerStatuses"].size() == 2);
  const json& trainer = status["containerStatuses"][0];
  CHECK(trainer["name"] == "trainer");
  CHECK(trainer["state"]["running"]["startedAt"] == "2026-11-23T02:00:01Z");
  CHECK(trainer["ready"] == true);
  CHECK(trainer["started"] == true);
  CHECK(trainer["restartCount"] == 0);
  CHECK(trainer["image"] == "example.com/trainer:1.1");
  CHECK(trainer["imageID"].get<std::string>().rfind("example.com/trainer@sha256:", 0) == 0);
  CHECK(trainer["containerID"].get<std::string>().size() ==
        std::string("containerd://").size() + 64);
  CHECK(status["containerStatuses"][1]["name"] == "sidecar");
  REQUIRE(status["initContainerStatuses"].size() == 1);
  CHECK(status["initContainerStatuses"][0]["state"]["terminated"]["reason"] == "Completed");
  CHECK(status["hostIP"] == hostIpFor("gpu-r1-n1"));
  CHECK(status["podIP"] == podIpFor("gpu-r1-n1", "de85b479-35b8-4c25-90e8-2176b34979c4"));
  CHECK(status["podIPs"] == json::array({{{"ip", status["podIP"]}}}));
}

TEST_CASE("a pod that ends reports how its containers exited", "[kubelet][pod-status]") {
  struct Case {
    std::string name;
    int exit_code;
    std::string want_phase;
    std::string want_container_reason;
    std::string want_ready_reason;
  };
  std::vector<Case> cases = {
      {"exit 0 is Succeeded, reason Completed", 0, "Succeeded", "Completed", "PodCompleted"},
      {"exit 1 is Failed, reason Error", 1, "Failed", "Error", "PodFailed"},
      {"exit 137 is Failed too", 137, "Failed", "Error", "PodFailed"},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      json pod = boundPod();
      pod["status"] = runningStatus(pod, at("2026-11-23T02:00:01Z"));
      json status = exitedStatus(pod, tc.exit_code, at("2026-11-23T02:01:31Z"));
      CHECK(status["phase"] == tc.want_phase);
      CHECK_FALSE(status.contains("reason"));
      const json& terminated = status["containerStatuses"][0]["state"]["terminated"];
      CHECK(terminated["exitCode"] == tc.exit_code);
      CHECK(terminated["reason"] == tc.want_container_reason);
      CHECK(terminated["startedAt"] == "2026-11-23T02:00:01Z");  // from the running state
      CHECK(terminated["finishedAt"] == "2026-11-23T02:01:31Z");
      CHECK(terminated["containerID"] == pod["status"]["containerStatuses"][0]["containerID"]);
      CHECK(status["containerStatuses"][0]["ready"] == false);
      CHECK(conditionOf(status, "Ready")["status"] == "False");
      CHECK(conditionOf(status, "Ready")["reason"] == tc.want_ready_reason);
      CHECK(conditionOf(status, "Ready")["lastTransitionTime"] == "2026-11-23T02:01:31Z");
      // Initialized stayed True: its transition time is the one from the start.
      CHECK(conditionOf(status, "Initialized")["lastTransitionTime"] == "2026-11-23T02:00:01Z");
      CHECK(status["startTime"] == "2026-11-23T02:00:01Z");
    }
  }
}

TEST_CASE("a pod whose node failed is Failed with reason NodeLost", "[kubelet][pod-status]") {
  json pod = boundPod();
  pod["status"] = runningStatus(pod, at("2026-11-23T02:00:01Z"));
  json status = nodeLostStatus(pod, at("2026-11-23T02:05:00Z"));
  CHECK(status["phase"] == "Failed");
  CHECK(status["reason"] == "NodeLost");
  CHECK(status["message"] ==
        "Node gpu-r1-n1 which was running pod llama-a-worker-0 is unresponsive");
  const json& terminated = status["containerStatuses"][0]["state"]["terminated"];
  CHECK(terminated["exitCode"] == 137);
  CHECK(terminated["reason"] == "ContainerStatusUnknown");
  CHECK(conditionOf(status, "Ready")["reason"] == "PodFailed");
}

TEST_CASE("a pod created already bound gets a PodScheduled condition", "[kubelet][pod-status]") {
  json pod = boundPod();
  pod["status"] = {{"phase", "Pending"}};
  json status = runningStatus(pod, at("2026-11-23T02:00:05Z"));
  CHECK(conditionOf(status, "PodScheduled")["status"] == "True");
  CHECK(conditionOf(status, "PodScheduled")["lastTransitionTime"] == "2026-11-23T02:00:05Z");
  CHECK(conditionTypes(status).back() == "PodScheduled");
}

TEST_CASE("made-up addresses are stable, and differ between nodes and pods",
          "[kubelet][pod-status]") {
  CHECK(hostIpFor("gpu-r1-n1") == hostIpFor("gpu-r1-n1"));
  CHECK(hostIpFor("gpu-r1-n1") != hostIpFor("gpu-r1-n2"));
  CHECK(hostIpFor("gpu-r1-n1").rfind("172.", 0) == 0);
  CHECK(podIpFor("gpu-r1-n1", "uid-a") != podIpFor("gpu-r1-n1", "uid-b"));
  CHECK(podIpFor("gpu-r1-n1", "uid-a").rfind("10.", 0) == 0);
  // Pods of one node share its /24.
  auto prefix = [](const std::string& ip) { return ip.substr(0, ip.rfind('.')); };
  CHECK(prefix(podIpFor("gpu-r1-n1", "uid-a")) == prefix(podIpFor("gpu-r1-n1", "uid-b")));
}
