// The real kubectl (through the machine's version dispatcher, which picks kubectl
// 1.<minor> from what /version reports) against the server, for every command the
// standalone mode promises.
#include <sys/resource.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "test/support/in_process_server.h"
#include "test/support/serve_process.h"

namespace troupe::testing {
namespace {

class Kubectl {
 public:
  Kubectl(std::string kubeconfig, std::string cache)
      : kubeconfig_(std::move(kubeconfig)), cache_(std::move(cache)) {}
  // Runs kubectl and records what it printed in the test's failure report.
  CommandResult run(const std::string& args) const {
    auto result = runQuietly(args);
    report(args, result);
    return result;
  }
  // The same without touching Catch, which is not thread-safe: for the helper threads that
  // run one kubectl beside another. The test thread reports the result after joining.
  CommandResult runQuietly(const std::string& args) const {
    const char* verbose = std::getenv("TROUPE_KUBECTL_VERBOSE");
    return runCommand("timeout 60 kubectl --kubeconfig " + kubeconfig_ + " --cache-dir " + cache_ +
                      (verbose ? " -v=" + std::string(verbose) : std::string()) + " " + args);
  }
  static void report(const std::string& args, const CommandResult& result) {
    UNSCOPED_INFO("kubectl " << args << "\n=> rc " << result.exit_code << "\n" << result.output);
  }

 private:
  std::string kubeconfig_;
  std::string cache_;
};

const char* kJob = R"(apiVersion: troupe.dev/v1alpha1
kind: TrainingJob
metadata:
  name: llama-k
  namespace: kdemo
spec:
  queue: gpu-high
  replicas: 2
  gpusPerReplica: 8
)";

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

void kubectlStory(const std::string& minor) {
  ServeProcess server(minor);
  REQUIRE(server.start());
  std::string dir = server.workDir();
  Kubectl kubectl(server.kubeconfig(), dir + "/kube-cache");
  std::ofstream(dir + "/tj.yaml") << kJob;
  std::string modified = kJob;
  modified.replace(modified.find("replicas: 2"), 11, "replicas: 3");
  std::ofstream(dir + "/tj-modified.yaml") << modified;

  auto version = kubectl.run("version -o json");
  CHECK(version.exit_code == 0);
  CHECK(contains(version.output, "\"minor\": \"" + minor + "\""));

  auto resources = kubectl.run("api-resources");
  REQUIRE(resources.exit_code == 0);
  CHECK(contains(resources.output, "trainingjobs"));
  CHECK(contains(resources.output, "troupe.dev/v1alpha1"));

  std::ofstream(dir + "/ns.yaml") << "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: kdemo\n";
  CHECK(kubectl.run("create -f " + dir + "/ns.yaml").exit_code == 0);
  // The typed generators: kubectl 1.33 sends their objects as protobuf, older ones as JSON.
  CHECK(kubectl.run("create namespace team-b").exit_code == 0);
  CHECK(kubectl
            .run("create configmap settings -n kdemo --from-literal=lr=0.01 "
                 "--from-literal=epochs=3")
            .exit_code == 0);
  CHECK(kubectl.run("create secret generic hf-token -n kdemo --from-literal=token=s3cret")
            .exit_code == 0);
  CHECK(kubectl.run("create serviceaccount trainer -n kdemo").exit_code == 0);
  CHECK(
      kubectl.run("create priorityclass urgent --value=100000 --description='on call'").exit_code ==
      0);
  CHECK(contains(kubectl.run("get namespace team-b -o name").output, "namespace/team-b"));
  auto settings =
      kubectl.run("get configmap settings -n kdemo -o jsonpath={.data.lr}/{.data.epochs}");
  CHECK(settings.output == "0.01/3");
  auto token = kubectl.run("get secret hf-token -n kdemo -o jsonpath={.data.token}");
  CHECK(token.output == "czNjcmV0");  // base64 of s3cret
  CHECK(kubectl.run("get serviceaccount trainer -n kdemo").exit_code == 0);
  auto urgent = kubectl.run("get priorityclass urgent -o jsonpath={.value}/{.description}");
  CHECK(urgent.output == "100000/on call");
  auto created = kubectl.run("apply -f " + dir + "/tj.yaml");
  CHECK(created.exit_code == 0);
  CHECK(contains(created.output, "trainingjob.troupe.dev/llama-k created"));
  auto unchanged = kubectl.run("apply -f " + dir + "/tj.yaml");
  CHECK(contains(unchanged.output, "unchanged"));
  auto configured = kubectl.run("apply -f " + dir + "/tj-modified.yaml");
  CHECK(contains(configured.output, "trainingjob.troupe.dev/llama-k configured"));

  auto list = kubectl.run("get trainingjobs -n kdemo");
  CHECK(list.exit_code == 0);
  CHECK(contains(list.output, "NAME      QUEUE      REPLICAS   GPUS   PHASE   AGE"));
  CHECK(contains(list.output, "llama-k   gpu-high   3          8"));

  auto yaml = kubectl.run("get tj llama-k -n kdemo -o yaml");
  CHECK(contains(yaml.output, "generation: 2"));
  CHECK(contains(yaml.output, "replicas: 3"));

  CHECK(kubectl.run("patch tj llama-k -n kdemo --type=merge -p '{\"spec\":{\"replicas\":4}}'")
            .exit_code == 0);
  auto scaled = kubectl.run("scale tj llama-k -n kdemo --replicas=5");
  CHECK(scaled.exit_code == 0);
  CHECK(contains(scaled.output, "scaled"));
  CHECK(kubectl.run("label tj llama-k -n kdemo team=nlp").exit_code == 0);
  auto labelled = kubectl.run("get tj -n kdemo -l team=nlp -o name");
  CHECK(contains(labelled.output, "trainingjob.troupe.dev/llama-k"));

  auto described = kubectl.run("describe tj llama-k -n kdemo");
  CHECK(described.exit_code == 0);
  CHECK(contains(described.output, "Name:         llama-k"));
  CHECK(contains(described.output, "Replicas:          5"));

  auto explained = kubectl.run("explain trainingjobs.spec");
  CHECK(explained.exit_code == 0);
  CHECK(contains(explained.output, "gpusPerReplica"));

  // wait: the condition turns True while kubectl waits.
  const std::string ready_patch =
      "patch tj llama-k -n kdemo --subresource=status --type=merge -p "
      "'{\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":"
      "\"True\"}]}}'";
  CommandResult patched;
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    patched = kubectl.runQuietly(ready_patch);
  });
  auto waited = kubectl.run("wait --for=condition=Ready tj/llama-k -n kdemo --timeout=20s");
  writer.join();
  Kubectl::report(ready_patch, patched);
  CHECK(waited.exit_code == 0);
  CHECK(contains(waited.output, "condition met"));

  // get -w prints the list, then each change.
  const std::string resize_patch =
      "patch tj llama-k -n kdemo --type=merge -p '{\"spec\":{\"replicas\":6}}'";
  CommandResult resized;
  std::thread changer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(2000));
    resized = kubectl.runQuietly(resize_patch);
  });
  auto watched = kubectl.run("get tj -n kdemo -w --request-timeout=5s");
  changer.join();
  Kubectl::report(resize_patch, resized);
  CHECK(contains(watched.output, "llama-k   gpu-high   5          8      Running"));
  CHECK(contains(watched.output, "llama-k   gpu-high   6          8      Running"));

  auto ssa = kubectl.run("apply --server-side -f " + dir + "/tj.yaml");
  CHECK(ssa.exit_code == 0);
  CHECK(contains(ssa.output, "serverside-applied"));

  auto deleted = kubectl.run("delete tj llama-k -n kdemo");
  CHECK(deleted.exit_code == 0);
  CHECK(contains(deleted.output, "trainingjob.troupe.dev \"llama-k\" deleted"));
  auto gone = kubectl.run("get tj llama-k -n kdemo");
  CHECK(gone.exit_code != 0);
  CHECK(contains(gone.output, "NotFound"));
}

TEST_CASE("a restarted server keeps every object and SIGTERM stops it cleanly",
          "[apiserver][serve]") {
  TempDir data;
  std::string dir = data.path() + "/data";
  std::string uid;
  {
    ServeProcess first("28", dir);
    REQUIRE(first.start());
    Kubectl kubectl(first.kubeconfig(), data.path() + "/cache");
    std::ofstream(data.path() + "/tj.yaml")
        << std::string(kJob).replace(std::string(kJob).find("kdemo"), 5, "default");
    REQUIRE(kubectl.run("apply -f " + data.path() + "/tj.yaml").exit_code == 0);
    uid = kubectl.run("get tj llama-k -o jsonpath={.metadata.uid}").output;
    CHECK(first.stop() == 0);
  }
  ServeProcess second("28", dir);
  REQUIRE(second.start());
  Kubectl kubectl(second.kubeconfig(), data.path() + "/cache2");
  auto after = kubectl.run("get tj llama-k -o jsonpath={.metadata.uid}");
  CHECK(after.exit_code == 0);
  CHECK(after.output == uid);
  CHECK(second.stop() == 0);
}

TEST_CASE("troupe serve raises its open-file limit to the hard limit", "[apiserver][serve]") {
  rlimit mine{};
  REQUIRE(getrlimit(RLIMIT_NOFILE, &mine) == 0);
  if (mine.rlim_max <= 256) {
    WARN("the hard open-file limit leaves no room to lower the soft one: not checked");
    return;
  }
  // The child inherits a soft limit below the hard one, as on many desktops (1,024).
  rlimit lowered = mine;
  lowered.rlim_cur = 256;
  REQUIRE(setrlimit(RLIMIT_NOFILE, &lowered) == 0);
  ServeProcess serve;
  const bool started = serve.start();
  REQUIRE(setrlimit(RLIMIT_NOFILE, &mine) == 0);
  REQUIRE(started);
  std::ifstream limits("/proc/" + std::to_string(serve.pid()) + "/limits");
  std::string line, soft, hard;
  while (std::getline(limits, line)) {
    if (line.rfind("Max open files", 0) != 0) continue;
    std::istringstream fields(line.substr(std::string("Max open files").size()));
    fields >> soft >> hard;
  }
  CHECK(soft == std::to_string(mine.rlim_max));
  CHECK(hard == std::to_string(mine.rlim_max));
  CHECK(serve.stop() == 0);
}

TEST_CASE("kubectl 1.28 drives every standalone command", "[apiserver][kubectl][slow]") {
  kubectlStory("28");
}
TEST_CASE("kubectl 1.33 drives every standalone command", "[apiserver][kubectl][slow]") {
  kubectlStory("33");
}

}  // namespace
}  // namespace troupe::testing
