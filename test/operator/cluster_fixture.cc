#include "test/operator/cluster_fixture.h"

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <vector>

#include "apiserver/auth/token_file.h"
#include "controllers/object_json.h"
#include "kube/config_loader.h"
#include "test/support/https_client.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace troupe::operator_runtime::testing {

using Json = nlohmann::json;
namespace res = kube::resources;
namespace ctl = controllers;

ClusterFixture::ClusterFixture(ClusterFixtureOptions options)
    : options_(options), chart_(renderChartIdentity()) {
  std::filesystem::create_directories(dir_.path() + "/data");
  // The admin's token and the chart's ServiceAccount's, which the stored RBAC objects
  // authorise (scope `rbac`).
  operator_token_ = apiserver::auth::randomToken();
  std::ofstream(dir_.path() + "/data/tokens")
      << apiserver::auth::randomToken() << " admin *\n"
      << operator_token_ << " " << chart_.user() << " rbac\n";
  authorization_log_ = dir_.path() + "/authorization.log";
  {
    // The nodes, as `troupe serve --cluster` reads them; its simulated kubelets keep them
    // Ready and run the pods bound to them.
    std::ofstream cluster(dir_.path() + "/cluster.yaml");
    for (int i = 0; i < options.nodes; ++i) {
      auto name = fmt::format("node-{}", i);
      cluster << "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: " << name
              << "\n  labels:\n    kubernetes.io/hostname: " << name << "\n";
      if (options.nodes_per_rack > 0)
        cluster << "    troupe.dev/rack: rack-" << i / options.nodes_per_rack << "\n";
      cluster << "status:\n";
      for (const char* section : {"capacity", "allocatable"})
        cluster << "  " << section << ":\n    nvidia.com/gpu: \"" << options.gpus_per_node
                << "\"\n    cpu: \"64\"\n    memory: 512Gi\n    pods: \"110\"\n";
    }
  }
  const char* binary = std::getenv("TROUPE_SERVE_BINARY");
  if (!binary) binary = std::getenv("TROUPE_BINARY");
  REQUIRE(binary != nullptr);
  const std::string listen = fmt::format("127.0.0.1:{}", troupe::testing::freePort());
  const std::string data = dir_.path() + "/data";
  const std::string cluster = dir_.path() + "/cluster.yaml";
  const std::string crds = std::string(TROUPE_SOURCE_DIR) + "/crds";
  const std::string log = dir_.path() + "/serve.log";
  server_pid_ = fork();
  if (server_pid_ == 0) {
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    std::vector<const char*> argv = {binary,
                                     "serve",
                                     "--data-dir",
                                     data.c_str(),
                                     "--listen",
                                     listen.c_str(),
                                     "--cluster",
                                     cluster.c_str(),
                                     "--crds",
                                     crds.c_str(),
                                     "--no-operator",
                                     "--authorization-log",
                                     authorization_log_.c_str()};
    if (!options.admission) argv.push_back("--no-admission");
    argv.push_back(nullptr);
    execv(binary, const_cast<char* const*>(argv.data()));
    _exit(127);
  }
  kubeconfig_ = data + "/kubeconfig";
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!client_ && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (!std::filesystem::exists(kubeconfig_)) continue;
    kube::KubeconfigOptions ko;
    ko.explicit_path = kubeconfig_;
    auto config = kube::loadClientConfig(ko, kube::InClusterEnvironment{});
    if (!config) continue;
    config->qps = 1000;
    config->burst = 1000;
    config->max_retries = 1;
    auto made = kube::RestKubeClient::create(*config);
    if (!made) continue;
    if (!(*made)->list(res::kNamespaces, "", {})) continue;
    client_ = std::move(*made);
    config->token = operator_token_;
    operator_client_ = std::move(kube::RestKubeClient::create(*config).value());
  }
  if (!client_) {
    std::ifstream in(log);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    FAIL("troupe serve did not come up: " << text);
  }

  // Every node is there and Ready before the test starts.
  const auto want = static_cast<std::size_t>(options.nodes);
  while (std::chrono::steady_clock::now() < deadline) {
    auto nodes = client_->list(res::kNodes, "", {});
    std::size_t ready = 0;
    if (nodes)
      for (const auto& n : (*nodes)["items"])
        for (const auto& c : n["status"].value("conditions", Json::array()))
          if (c.value("type", "") == "Ready" && c.value("status", "") == "True") ++ready;
    if (ready == want) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  applyChartIdentity();
  if (options.in_process_operator) {
    startOperator();
  } else {
    startOperatorProcess();
  }
}

void ClusterFixture::applyChartIdentity() {
  // Created as the admin, as `helm install` would (through the client: kubectl apply costs
  // half a second of discovery in every test).
  const std::string rbac = "rbac.authorization.k8s.io";
  const std::map<std::string, kube::ResourceType> types = {
      {"ServiceAccount", {"", "v1", "serviceaccounts", "ServiceAccount", true}},
      {"ClusterRole", {rbac, "v1", "clusterroles", "ClusterRole", false}},
      {"ClusterRoleBinding", {rbac, "v1", "clusterrolebindings", "ClusterRoleBinding", false}},
      {"Role", {rbac, "v1", "roles", "Role", true}},
      {"RoleBinding", {rbac, "v1", "rolebindings", "RoleBinding", true}},
  };
  REQUIRE(
      client_->create(res::kNamespaces, "", Json{{"metadata", {{"name", chart_.ns}}}}, {}).ok());
  for (const auto& o : chart_.rbac_objects) {
    const auto& type = types.at(o.value("kind", ""));
    auto made = client_->create(type, type.namespaced ? chart_.ns : "", o, {});
    INFO(o.dump());
    REQUIRE(made.ok());
  }
  // The operator process's kubeconfig: the admin's, with the ServiceAccount's token.
  std::ifstream in(kubeconfig_);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string admin_token = client_->config().token;
  auto at = text.find(admin_token);
  REQUIRE(at != std::string::npos);
  text.replace(at, admin_token.size(), operator_token_);
  operator_kubeconfig_ = dir_.path() + "/operator-kubeconfig";
  std::ofstream(operator_kubeconfig_) << text;
}

std::vector<Decision> ClusterFixture::decisions() const {
  return readDecisionLog(authorization_log_);
}

void ClusterFixture::startOperatorProcess() {
  const char* binary = std::getenv("TROUPE_BINARY");
  REQUIRE(binary != nullptr);
  const std::string state = dir_.path() + "/state";
  const std::string log = dir_.path() + "/operator.log";
  operator_pid_ = fork();
  if (operator_pid_ == 0) {
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    // No leader election here: a process started again after SIGKILL has a new identity
    // and would wait out the dead one's Lease before leading.
    execl(binary, binary, "operator", "--kubeconfig", operator_kubeconfig_.c_str(), "--state-dir",
          state.c_str(), "--leader-elect=false", "--metrics-addr", "127.0.0.1:0", "--health-addr",
          "127.0.0.1:0", "--log-level", "info", static_cast<char*>(nullptr));
    _exit(127);
  }
}

void ClusterFixture::killOperatorProcess() {
  if (operator_pid_ <= 0) return;
  kill(operator_pid_, SIGKILL);
  int status = 0;
  waitpid(operator_pid_, &status, 0);
  operator_pid_ = -1;
}

ClusterFixture::~ClusterFixture() {
  if (operator_) operator_->stop();
  if (operator_pid_ > 0) {
    kill(operator_pid_, SIGTERM);
    int status = 0;
    waitpid(operator_pid_, &status, 0);
  }
  // What the operator asked for and the chart does not allow. While a failed REQUIRE
  // unwinds the test an assertion would end the process: the list is printed instead.
  std::set<std::string> denials;
  for (const auto& d : decisions())
    if (d.user == chart_.user() && !d.allowed) denials.insert(d.describe());
  std::string denied;
  for (const auto& d : denials) denied += "\n  " + d;
  const std::string what = "requests of the operator that the chart's RBAC rules do not allow:";
  if (std::uncaught_exceptions() == 0) {
    INFO(what << denied);
    CHECK(denied.empty());
  } else if (!denied.empty()) {
    fmt::print(stderr, "{}{}\n", what, denied);
  }
  if (server_pid_ > 0) {
    kill(server_pid_, SIGTERM);
    int status = 0;
    waitpid(server_pid_, &status, 0);
  }
}

void ClusterFixture::startOperator() {
  OperatorOptions options;
  options.state_dir = dir_.path() + "/state";
  // As the chart's Deployment runs it, with one identity across restarts so that a
  // restarted operator renews its own Lease at once.
  options.leader_elect = options_.leader_elect;
  options.leader_election_namespace = chart_.leader_election_namespace;
  options.leader_election_id = chart_.leader_election_id;
  options.identity = "e2e-operator";
  options.min_cycle_gap = std::chrono::milliseconds(50);
  options.cycle_interval = std::chrono::milliseconds(300);
  auto op = Operator::create(*operator_client_, options, time_);
  if (!op) FAIL("operator not created: " << op.error().describe());
  operator_ = std::move(*op);
  operator_->start();
}

void ClusterFixture::restartOperator() {
  operator_->stop();
  operator_.reset();
  startOperator();
}

std::string ClusterFixture::kubectl(const std::string& args, const std::string& input) {
  auto in = dir_.path() + "/stdin.yaml";
  std::ofstream(in) << input;
  auto command = fmt::format("kubectl --kubeconfig {} {} < {} 2>&1", kubeconfig_, args, in);
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  std::array<char, 4096> buf{};
  while (std::size_t n = fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  int rc = pclose(pipe);
  INFO("kubectl " << args << "\n" << out);
  REQUIRE(rc == 0);
  return out;
}

std::string ClusterFixture::jobPhase(const std::string& job) {
  auto j = client_->get({res::kTrainingJobs, "default", job, ""});
  return j ? ctl::stringAt(*j, "/status/phase") : "";
}

Json ClusterFixture::get(const std::string& what) {
  auto in = dir_.path() + "/empty";
  std::ofstream(in) << "";
  auto command =
      fmt::format("kubectl --kubeconfig {} get {} -o json < {} 2>/dev/null", kubeconfig_, what, in);
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  std::array<char, 4096> buf{};
  while (std::size_t n = fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  if (pclose(pipe) != 0) return Json();
  return Json::parse(out, nullptr, false);
}

bool ClusterFixture::eventually(const std::function<bool()>& condition,
                                std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return condition();
}

}  // namespace troupe::operator_runtime::testing
