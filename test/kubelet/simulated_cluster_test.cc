// The simulated kubelets inside the real `troupe serve`, driven the way users and the
// operator drive them: kubectl creates, deletes, annotates and waits; the Kubernetes
// client binds pods as a scheduler would (POST pods/<name>/binding) and reads status.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <set>
#include <thread>

#include "kube/kubeconfig.h"
#include "kube/rest_kube_client.h"
#include "test/support/serve_client.h"
#include "test/support/sim_serve.h"

using namespace troupe;
using namespace troupe::testing;
using json = nlohmann::json;
using std::chrono::milliseconds;
using Steady = std::chrono::steady_clock;

namespace {

namespace res = kube::resources;

// `nodes` nodes with 8 GPUs each, as the cluster file of `troupe serve --cluster` holds them.
std::string clusterYaml(int nodes) {
  std::string yaml;
  for (int i = 1; i <= nodes; ++i) {
    std::string name = "sim-n" + std::to_string(i);
    yaml += "apiVersion: v1\nkind: Node\nmetadata:\n  name: " + name +
            "\n  labels:\n    kubernetes.io/hostname: " + name +
            "\n    troupe.dev/rack: rack-1\nstatus:\n  capacity:\n    nvidia.com/gpu: \"8\"\n"
            "  allocatable:\n    nvidia.com/gpu: \"8\"\n---\n";
  }
  return yaml;
}

// Polls `probe` every 20 ms until it is true or `limit` passes.
bool eventually(const std::function<bool()>& probe, milliseconds limit = milliseconds(20000)) {
  auto deadline = Steady::now() + limit;
  while (Steady::now() < deadline) {
    if (probe()) return true;
    std::this_thread::sleep_for(milliseconds(20));
  }
  return probe();
}

json podYaml(const std::string& name, const std::map<std::string, std::string>& annotations,
             int gpus = 4) {
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", name}, {"namespace", "sim"}}},
              {"spec",
               {{"restartPolicy", "Never"},
                {"schedulerName", "troupe"},
                {"containers", json::array({{{"name", "trainer"},
                                             {"image", "example.com/trainer:1.0"},
                                             {"resources", json::object()}}})}}}};
  if (gpus > 0)
    pod["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = std::to_string(gpus);
  for (const auto& [k, v] : annotations) pod["metadata"]["annotations"][k] = v;
  return pod;
}

// The pod, created already bound to `node` on the GPU indices `gpus` (as Troupe binds).
json boundPodYaml(const std::string& name, const std::string& node, const std::string& gpus,
                  const std::map<std::string, std::string>& annotations) {
  json pod = podYaml(name, annotations);
  pod["spec"]["nodeName"] = node;
  pod["metadata"]["annotations"]["troupe.dev/gpu-indices"] = gpus;
  return pod;
}

// kubectl create -f of the pod (JSON is YAML).
void createWithKubectl(const SimServe& serve, const json& pod) {
  std::string file = serve.dir() + "/" + pod["metadata"]["name"].get<std::string>() + ".json";
  std::ofstream(file) << pod.dump();
  auto made = kubectl(serve, "create -f " + file);
  INFO(made.output);
  REQUIRE(made.exit_code == 0);
}

std::string phaseOf(kube::KubeClient& client, const std::string& name) {
  auto pod = client.get({res::kPods, "sim", name, ""});
  if (!pod) return pod.error().isNotFound() ? "<gone>" : "<error>";
  return (*pod)["status"].value("phase", "");
}

json getPod(kube::KubeClient& client, const std::string& name) {
  auto pod = client.get({res::kPods, "sim", name, ""});
  REQUIRE(pod);
  return pod.value();
}

bool nodeReady(kube::KubeClient& client, const std::string& name, const std::string& want) {
  auto node = client.get({res::kNodes, "", name, ""});
  if (!node) return false;
  for (const auto& c : (*node)["status"].value("conditions", json::array()))
    if (c["type"] == "Ready") return c["status"] == want;
  return false;
}

}  // namespace

TEST_CASE(
    "pods bound to simulated nodes run, finish, fail, stop on delete and die with "
    "their node",
    "[kubelet][cluster]") {
  // Speed 20: a 1 s start delay takes 50 ms, 40 s of running takes 2 s.
  SimServe serve(clusterYaml(3), 20);
  REQUIRE(serve.start());
  auto client = clientFor(serve);
  INFO(serve.log());

  // The kubelets make their nodes Ready and hold a Lease for each.
  for (const char* node : {"sim-n1", "sim-n2", "sim-n3"}) {
    CHECK(eventually([&] { return nodeReady(*client, node, "True"); }));
  }
  CHECK(eventually([&] {
    return bool(client->get({res::kLeases, "kube-node-lease", "sim-n1", ""}));
  }));
  auto node = client->get({res::kNodes, "", "sim-n1", ""});
  REQUIRE(node);
  CHECK((*node)["status"]["nodeInfo"]["kubeletVersion"] == "v1.28.0-troupe-sim");
  CHECK((*node)["status"]["capacity"]["nvidia.com/gpu"] == "8");

  REQUIRE(kubectl(serve, "create namespace sim").exit_code == 0);

  SECTION("a pod with a duration goes Running, then Succeeded") {
    createWithKubectl(serve, podYaml("short", {{"troupe.dev/sim-duration-seconds", "40"}}));
    std::this_thread::sleep_for(milliseconds(300));
    CHECK(phaseOf(*client, "short") == "Pending");  // unbound: no kubelet touches it
    REQUIRE(kube::bindPod(*client, "sim", "short", "sim-n1"));
    CHECK(eventually([&] { return phaseOf(*client, "short") == "Running"; }, milliseconds(5000)));
    json running = getPod(*client, "short");
    CHECK(running["status"]["containerStatuses"][0]["state"].contains("running"));
    CHECK(running["status"]["hostIP"].get<std::string>().rfind("172.", 0) == 0);
    auto started = Steady::now();
    CHECK(eventually([&] { return phaseOf(*client, "short") == "Succeeded"; }));
    // 40 simulated seconds at speed 20 = 2 s after Running (timestamps have whole seconds,
    // and the poll started a little after the start).
    CHECK(Steady::now() - started > milliseconds(1000));
    json done = getPod(*client, "short");
    const json& terminated = done["status"]["containerStatuses"][0]["state"]["terminated"];
    CHECK(terminated["exitCode"] == 0);
    CHECK(terminated["reason"] == "Completed");
    CHECK(terminated.contains("finishedAt"));
    // kube-apiserver's printer says Completed (the container's reason), Troupe's the phase.
    auto shown = kubectl(serve, "get pod short -n sim");
    INFO(shown.output);
    CHECK((shown.output.find("Completed") != std::string::npos ||
           shown.output.find("Succeeded") != std::string::npos));
  }

  SECTION("a non-zero exit code makes the pod Failed") {
    createWithKubectl(serve, podYaml("crash", {{"troupe.dev/sim-duration-seconds", "2"},
                                               {"troupe.dev/sim-exit-code", "3"}}));
    REQUIRE(kube::bindPod(*client, "sim", "crash", "sim-n2"));
    CHECK(eventually([&] { return phaseOf(*client, "crash") == "Failed"; }));
    json failed = getPod(*client, "crash");
    const json& terminated = failed["status"]["containerStatuses"][0]["state"]["terminated"];
    CHECK(terminated["exitCode"] == 3);
    CHECK(terminated["reason"] == "Error");
  }

  SECTION("kubectl wait sees Ready; a deleted pod terminates, then disappears") {
    // 40 s of termination at speed 20: 2 s between the delete and the removal.
    createWithKubectl(serve, podYaml("server", {{"troupe.dev/sim-termination-seconds", "40"}}));
    REQUIRE(kube::bindPod(*client, "sim", "server", "sim-n1"));
    auto waited = kubectl(serve, "wait --for=condition=Ready pod/server -n sim --timeout=20s");
    INFO(waited.output);
    CHECK(waited.exit_code == 0);
    CHECK(waited.output.find("condition met") != std::string::npos);

    REQUIRE(kubectl(serve, "delete pod server -n sim --wait=false").exit_code == 0);
    json terminating = getPod(*client, "server");
    CHECK(terminating["metadata"].contains("deletionTimestamp"));
    CHECK(kubectl(serve, "get pod server -n sim").output.find("Terminating") != std::string::npos);
    auto deleted = kubectl(serve, "wait --for=delete pod/server -n sim --timeout=20s");
    INFO(deleted.output);
    CHECK(deleted.exit_code == 0);
    CHECK(phaseOf(*client, "server") == "<gone>");
  }

  SECTION("a node annotated as failed goes NotReady and its pods fail with NodeLost") {
    createWithKubectl(serve, podYaml("victim", {}));
    createWithKubectl(serve, podYaml("bystander", {}));
    REQUIRE(kube::bindPod(*client, "sim", "victim", "sim-n3"));
    REQUIRE(kube::bindPod(*client, "sim", "bystander", "sim-n2"));
    CHECK(eventually([&] { return phaseOf(*client, "victim") == "Running"; }));
    CHECK(eventually([&] { return phaseOf(*client, "bystander") == "Running"; }));

    REQUIRE(kubectl(serve, "annotate node sim-n3 troupe.dev/sim-node-failure=true").exit_code == 0);
    CHECK(eventually([&] { return nodeReady(*client, "sim-n3", "False"); }));
    CHECK(eventually([&] { return phaseOf(*client, "victim") == "Failed"; }));
    json lost = getPod(*client, "victim");
    CHECK(lost["status"]["reason"] == "NodeLost");
    CHECK(phaseOf(*client, "bystander") == "Running");

    // Back: the annotation removed, the node is Ready again and runs new pods.
    REQUIRE(kubectl(serve, "annotate node sim-n3 troupe.dev/sim-node-failure-").exit_code == 0);
    CHECK(eventually([&] { return nodeReady(*client, "sim-n3", "True"); }));
    createWithKubectl(serve, podYaml("after", {}));
    REQUIRE(kube::bindPod(*client, "sim", "after", "sim-n3"));
    CHECK(eventually([&] { return phaseOf(*client, "after") == "Running"; }));
  }

  SECTION("a pod bound to GPUs a terminating pod still holds is not admitted") {
    // old terminates for 40 s (2 s at speed 20) on GPUs 0-3 of sim-n1.
    createWithKubectl(serve, boundPodYaml("old", "sim-n1", "0,1,2,3",
                                          {{"troupe.dev/sim-termination-seconds", "40"}}));
    CHECK(eventually([&] { return phaseOf(*client, "old") == "Running"; }));
    REQUIRE(kubectl(serve, "delete pod old -n sim --wait=false").exit_code == 0);
    // Onto GPUs 2-5 while old terminates: refused, as a kubelet's device manager would.
    createWithKubectl(serve, boundPodYaml("onto", "sim-n1", "2,3,4,5", {}));
    CHECK(eventually([&] { return phaseOf(*client, "onto") == "Failed"; }));
    json refused = getPod(*client, "onto");
    CHECK(refused["status"]["reason"] == "UnexpectedAdmissionError");
    CHECK(refused["status"]["message"].get<std::string>().find("held by pod sim/old") !=
          std::string::npos);
    CHECK(phaseOf(*client, "old") == "Running");  // still terminating
    // Beside it, on GPUs 4-7 it does not hold: runs.
    createWithKubectl(serve, boundPodYaml("beside", "sim-n1", "4,5,6,7", {}));
    CHECK(eventually([&] { return phaseOf(*client, "beside") == "Running"; }));
    // Once old is gone, its GPUs run a pod again.
    REQUIRE(eventually([&] { return phaseOf(*client, "old") == "<gone>"; }));
    createWithKubectl(serve, boundPodYaml("after", "sim-n1", "0,1,2,3", {}));
    CHECK(eventually([&] { return phaseOf(*client, "after") == "Running"; }));
  }

  SECTION("a Ready=False written with kubectl patch --subresource=status fails the pods") {
    createWithKubectl(serve, podYaml("patched", {}));
    REQUIRE(kube::bindPod(*client, "sim", "patched", "sim-n2"));
    CHECK(eventually([&] { return phaseOf(*client, "patched") == "Running"; }));
    auto patched = kubectl(serve,
                           "patch node sim-n2 --subresource=status --type=merge -p "
                           "'{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\","
                           "\"reason\":\"Maintenance\",\"message\":\"by hand\"}]}}'");
    INFO(patched.output);
    REQUIRE(patched.exit_code == 0);
    CHECK(eventually([&] { return phaseOf(*client, "patched") == "Failed"; }));
    CHECK(getPod(*client, "patched")["status"]["reason"] == "NodeLost");
    // The kubelet keeps the condition someone else wrote.
    std::this_thread::sleep_for(milliseconds(300));
    CHECK(nodeReady(*client, "sim-n2", "False"));
  }

  CHECK(serve.stop() == 0);
}

TEST_CASE("many pods on many nodes all run to completion", "[kubelet][cluster]") {
  const char* scale_env = std::getenv("TROUPE_TEST_SCALE");
  int scale = scale_env ? std::max(1, std::atoi(scale_env)) : 1;
  const int nodes = 10 * scale;
  const int pods = 100 * scale;
  // Speed 100: 1 s start = 10 ms, 50 s run = 500 ms.
  SimServe serve(clusterYaml(nodes), 100);
  REQUIRE(serve.start());
  auto client = clientFor(serve);
  INFO(serve.log());
  REQUIRE(eventually([&] { return nodeReady(*client, "sim-n" + std::to_string(nodes), "True"); }));
  REQUIRE(kubectl(serve, "create namespace sim").exit_code == 0);

  auto begin = Steady::now();
  for (int i = 0; i < pods; ++i) {
    std::string name = "p" + std::to_string(i);
    // No GPUs: ten pods a node would not fit on its 8 GPUs.
    auto made = client->create(res::kPods, "sim",
                               podYaml(name, {{"troupe.dev/sim-duration-seconds", "50"}}, 0), {});
    REQUIRE(made);
    REQUIRE(kube::bindPod(*client, "sim", name, "sim-n" + std::to_string(1 + i % nodes)));
  }
  auto all_succeeded = [&] {
    auto list = kube::listAll(*client, res::kPods, "sim");
    if (!list) return false;
    int done = 0;
    for (const auto& p : (*list)["items"]) done += p["status"].value("phase", "") == "Succeeded";
    return done == pods;
  };
  CHECK(eventually(all_succeeded, milliseconds(60000)));
  auto elapsed = std::chrono::duration_cast<milliseconds>(Steady::now() - begin);
  WARN(pods << " pods on " << nodes << " nodes created, bound, run and finished in "
            << elapsed.count() << " ms");
  CHECK(serve.stop() == 0);
}
