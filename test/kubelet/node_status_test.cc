#include <catch2/catch.hpp>

#include "common/rfc3339.h"
#include "kubelet/node_status.h"
#include "kubelet/pod_status.h"

using namespace troupe;
using namespace troupe::kubelet;
using json = nlohmann::json;

namespace {

const Time kT0 = parseRfc3339("2026-11-23T02:00:00Z").value();

// A node as the cluster file creates it: capacity, no conditions.
json freshNode() {
  return json::parse(R"({
    "apiVersion": "v1", "kind": "Node",
    "metadata": {"name": "gpu-r1-n1", "uid": "node-uid-1", "labels": {"troupe.dev/rack": "rack-1"}},
    "status": {"capacity": {"nvidia.com/gpu": "8"}, "allocatable": {"nvidia.com/gpu": "8"}}})");
}

json withStatus(json node, const json& status) {
  node["status"] = status;
  return node;
}

json ready(const json& status) {
  for (const auto& c : status["conditions"])
    if (c["type"] == "Ready") return c;
  return nullptr;
}

}  // namespace

TEST_CASE("a new node becomes Ready with addresses and node info", "[kubelet][node-status]") {
  auto status = nodeStatusUpdate(freshNode(), kT0, false);
  REQUIRE(status);
  CHECK(ready(*status)["status"] == "True");
  CHECK(ready(*status)["reason"] == "KubeletReady");
  CHECK(ready(*status)["lastHeartbeatTime"] == "2026-11-23T02:00:00Z");
  CHECK(ready(*status)["lastTransitionTime"] == "2026-11-23T02:00:00Z");
  CHECK((*status)["capacity"]["nvidia.com/gpu"] == "8");  // kept
  CHECK((*status)["addresses"][0] ==
        json({{"type", "InternalIP"}, {"address", hostIpFor("gpu-r1-n1")}}));
  CHECK((*status)["nodeInfo"]["kubeletVersion"] == "v1.28.0-troupe-sim");
  CHECK((*status)["conditions"].size() == 4);
  CHECK(nodeHealth(withStatus(freshNode(), *status)) == NodeHealth::Ready);
  // Before the first post, its pods wait rather than fail.
  CHECK(nodeHealth(freshNode()) == NodeHealth::Unknown);
}

TEST_CASE("node status is written on change and on heartbeat only", "[kubelet][node-status]") {
  json node = withStatus(freshNode(), nodeStatusUpdate(freshNode(), kT0, true).value());
  const Time later = kT0 + std::chrono::seconds(30);
  SECTION("nothing changed and no heartbeat due: no write") {
    CHECK_FALSE(nodeStatusUpdate(node, later, false));
  }
  SECTION("a heartbeat moves lastHeartbeatTime, not lastTransitionTime") {
    auto status = nodeStatusUpdate(node, later, true);
    REQUIRE(status);
    CHECK(ready(*status)["lastHeartbeatTime"] == "2026-11-23T02:00:30Z");
    CHECK(ready(*status)["lastTransitionTime"] == "2026-11-23T02:00:00Z");
  }
}

TEST_CASE("the failure annotation takes a node down, and removing it brings it back",
          "[kubelet][node-status]") {
  json node = withStatus(freshNode(), nodeStatusUpdate(freshNode(), kT0, true).value());
  node["metadata"]["annotations"]["troupe.dev/sim-node-failure"] = "true";
  CHECK(failureRequested(node));
  const Time t1 = kT0 + std::chrono::seconds(10);
  auto down = nodeStatusUpdate(node, t1, false);
  REQUIRE(down);
  CHECK(ready(*down)["status"] == "False");
  CHECK(ready(*down)["reason"] == "NodeFailureSimulated");
  CHECK(ready(*down)["lastTransitionTime"] == "2026-11-23T02:00:10Z");
  node["status"] = *down;
  CHECK(nodeHealth(node) == NodeHealth::NotReady);
  // A failed kubelet posts nothing more, heartbeat or not.
  CHECK_FALSE(nodeStatusUpdate(node, t1 + std::chrono::seconds(60), true));

  node["metadata"]["annotations"].erase("troupe.dev/sim-node-failure");
  auto up = nodeStatusUpdate(node, t1 + std::chrono::seconds(60), false);
  REQUIRE(up);
  CHECK(ready(*up)["status"] == "True");
  CHECK(ready(*up)["lastTransitionTime"] == "2026-11-23T02:01:10Z");
}

TEST_CASE("a failure label works like the annotation, other values do not",
          "[kubelet][node-status]") {
  struct Case {
    std::string name;
    std::string where;
    std::string value;
    bool want;
  };
  std::vector<Case> cases = {{"label true", "labels", "true", true},
                             {"annotation true", "annotations", "true", true},
                             {"annotation false", "annotations", "false", false},
                             {"label yes", "labels", "yes", false}};
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      json node = freshNode();
      node["metadata"][tc.where]["troupe.dev/sim-node-failure"] = tc.value;
      CHECK(failureRequested(node) == tc.want);
    }
  }
}

TEST_CASE("a Ready=False written by someone else is kept, only the heartbeat moves",
          "[kubelet][node-status]") {
  json node = withStatus(freshNode(), nodeStatusUpdate(freshNode(), kT0, true).value());
  for (auto& c : node["status"]["conditions"]) {
    if (c["type"] == "Ready") {
      c["status"] = "False";
      c["reason"] = "Maintenance";
      c["message"] = "drained by hand";
      c["lastTransitionTime"] = "2026-11-23T02:00:05Z";
    }
  }
  CHECK(nodeHealth(node) == NodeHealth::NotReady);
  CHECK_FALSE(nodeStatusUpdate(node, kT0 + std::chrono::seconds(10), false));
  auto beat = nodeStatusUpdate(node, kT0 + std::chrono::seconds(30), true);
  REQUIRE(beat);
  CHECK(ready(*beat)["status"] == "False");
  CHECK(ready(*beat)["reason"] == "Maintenance");
  CHECK(ready(*beat)["lastTransitionTime"] == "2026-11-23T02:00:05Z");
  CHECK(ready(*beat)["lastHeartbeatTime"] == "2026-11-23T02:00:30Z");
}

TEST_CASE("a node's Lease is held by the node and owned by it", "[kubelet][node-status]") {
  json lease = nodeLease(freshNode(), kT0 + std::chrono::milliseconds(250));
  CHECK(lease["metadata"]["namespace"] == "kube-node-lease");
  CHECK(lease["metadata"]["name"] == "gpu-r1-n1");
  CHECK(lease["spec"]["holderIdentity"] == "gpu-r1-n1");
  CHECK(lease["spec"]["leaseDurationSeconds"] == 40);
  CHECK(lease["spec"]["renewTime"] == "2026-11-23T02:00:00.250000Z");
  CHECK(lease["metadata"]["ownerReferences"][0]["uid"] == "node-uid-1");
}
