#include <algorithm>
#include <map>

#include <catch2/catch.hpp>

#include "test/helm/chart_files.h"

namespace troupe::helm_test {
namespace {

YAML::Node operatorPodSpec() {
  auto deployment = findObject(loadStrippedTemplate("deployment.yaml"), "Deployment");
  return deployment["spec"]["template"]["spec"];
}

YAML::Node operatorContainer() {
  auto containers = operatorPodSpec()["containers"];
  REQUIRE(containers.size() == 1);
  return containers[0];
}

// "--name=value" -> {name, value}; "--name" alone -> {name, ""}.
std::map<std::string, std::string> flagsOf(const std::vector<std::string>& args) {
  std::map<std::string, std::string> flags;
  for (const auto& arg : args) {
    if (arg.rfind("--", 0) != 0) continue;
    auto eq = arg.find('=');
    INFO("flag given twice: " << arg);
    CHECK(flags.count(arg.substr(0, eq)) == 0);
    flags[arg.substr(0, eq)] = eq == std::string::npos ? "" : arg.substr(eq + 1);
  }
  return flags;
}

TEST_CASE("the operator container runs `troupe operator` with exactly the planned flags",
          "[helm][deployment]") {
  auto args = operatorContainer()["args"].as<std::vector<std::string>>();
  REQUIRE_FALSE(args.empty());
  CHECK(args[0] == "operator");
  auto flags = flagsOf(args);
  // Placeholders name the value each flag is filled from.
  std::map<std::string, std::string> want = {
      {"--kubeconfig", "TPL_."},  // inside `with .Values.operator.kubeconfig`: only when set
      {"--state-dir", "TPL_.Values.operator.stateDir"},
      {"--leader-elect", "true"},
      {"--leader-election-namespace", "TPL_.Release.Namespace"},
      {"--leader-election-id", "troupe-operator"},
      {"--metrics-addr", ":TPL_.Values.operator.metricsPort"},
      {"--health-addr", ":TPL_.Values.operator.healthPort"},
      {"--log-level", "TPL_.Values.operator.logLevel"},
      {"--kube-qps", "TPL_.Values.operator.kubeQPS"},
      {"--kube-burst", "TPL_.Values.operator.kubeBurst"},
      {"--topology-levels", "TPL_join_____.Values.operator.topologyLevels"},
      // inside `if .Values.webhook.enabled`: the webhook's port and certificate.
      {"--webhook-addr", ":TPL_.Values.webhook.port"},
      {"--webhook-cert-dir", "/etc/troupe/webhook"},
      // inside `if .Values.dashboard.enabled`: the pod's loopback, or every address behind
      // the dashboard's Service (chart_render_test renders both).
      {"--dashboard-addr", "TPL_include__troupe.dashboardAddress__."},
  };
  for (const auto& [flag, value] : want) {
    INFO(flag);
    CHECK(flags[flag] == value);
  }
  CHECK(flags.size() == want.size());
}

TEST_CASE("the operator container is locked down", "[helm][deployment][security]") {
  auto security = operatorContainer()["securityContext"];
  REQUIRE(security.IsMap());
  CHECK(security["runAsNonRoot"].as<bool>());
  CHECK(security["allowPrivilegeEscalation"].as<bool>() == false);
  CHECK(security["readOnlyRootFilesystem"].as<bool>());
  CHECK(security["capabilities"]["drop"].as<std::vector<std::string>>() ==
        std::vector<std::string>{"ALL"});
  CHECK_FALSE(security["capabilities"]["add"]);
  CHECK_FALSE(security["privileged"]);
  CHECK(security["seccompProfile"]["type"].as<std::string>() == "RuntimeDefault");

  // The pod-level context comes from values (checked in chart_values_test) and is always set.
  CHECK(operatorPodSpec()["securityContext"].IsDefined());
  auto deployment = readText(sourcePath("helm/troupe/templates/deployment.yaml"));
  CHECK(deployment.find("toYaml .Values.podSecurityContext") != std::string::npos);
  CHECK_FALSE(operatorPodSpec()["hostNetwork"]);
  CHECK_FALSE(operatorPodSpec()["hostPID"]);
}

TEST_CASE("the probes ask the health port for /healthz and /readyz", "[helm][deployment]") {
  auto container = operatorContainer();
  std::map<std::string, std::string> ports;
  for (const auto& port : container["ports"])
    ports[port["name"].as<std::string>()] = port["containerPort"].as<std::string>();
  CHECK(ports == std::map<std::string, std::string>{
                     {"metrics", "TPL_.Values.operator.metricsPort"},
                     {"health", "TPL_.Values.operator.healthPort"},
                     {"webhook", "TPL_.Values.webhook.port"},
                     {"dashboard", "TPL_.Values.dashboard.port"},
                 });
  CHECK(container["livenessProbe"]["httpGet"]["path"].as<std::string>() == "/healthz");
  CHECK(container["livenessProbe"]["httpGet"]["port"].as<std::string>() == "health");
  CHECK(container["readinessProbe"]["httpGet"]["path"].as<std::string>() == "/readyz");
  CHECK(container["readinessProbe"]["httpGet"]["port"].as<std::string>() == "health");
}

TEST_CASE("the state store is mounted where --state-dir points, and /tmp is an emptyDir",
          "[helm][deployment]") {
  auto container = operatorContainer();
  std::map<std::string, std::string> mounts;
  for (const auto& mount : container["volumeMounts"])
    mounts[mount["name"].as<std::string>()] = mount["mountPath"].as<std::string>();
  auto flags = flagsOf(container["args"].as<std::vector<std::string>>());
  CHECK(mounts == std::map<std::string, std::string>{{"state", flags["--state-dir"]},
                                                     {"tmp", "/tmp"},
                                                     {"webhook-tls", flags["--webhook-cert-dir"]}});

  std::map<std::string, YAML::Node> volumes;
  for (const auto& volume : operatorPodSpec()["volumes"])
    volumes.emplace(volume["name"].as<std::string>(), static_cast<const YAML::Node&>(volume));
  REQUIRE(volumes.size() == 3);
  CHECK(volumes["tmp"]["emptyDir"].IsDefined());
  CHECK(volumes["webhook-tls"]["secret"]["secretName"].as<std::string>() ==
        "TPL_include__troupe.fullname__.-webhook-tls");
  // With persistence (the first branch) the state is the chart's claim; otherwise an emptyDir.
  CHECK(volumes["state"]["persistentVolumeClaim"]["claimName"].as<std::string>() ==
        "TPL_include__troupe.stateClaimName__.");
  auto pvc = findObject(loadStrippedTemplate("state-pvc.yaml"), "PersistentVolumeClaim");
  CHECK(pvc["metadata"]["name"].as<std::string>() == "TPL_include__troupe.stateClaimName__.");

  // The other side: without persistence the state volume is an emptyDir.
  auto without = findObject(loadStrippedTemplate("deployment.yaml", Branch::Last), "Deployment");
  std::map<std::string, YAML::Node> other_volumes;
  for (const auto& volume : without["spec"]["template"]["spec"]["volumes"])
    other_volumes.emplace(volume["name"].as<std::string>(), static_cast<const YAML::Node&>(volume));
  CHECK(other_volumes["state"]["emptyDir"].IsDefined());
  CHECK_FALSE(other_volumes["state"]["persistentVolumeClaim"]);
}

TEST_CASE("with a ReadWriteOnce state volume the replicas share a node, unless affinity is set",
          "[helm][deployment]") {
  // First branch: the user's affinity, verbatim (toYaml), nothing generated.
  auto pod = operatorPodSpec();
  CHECK(pod["affinity"].IsDefined());
  CHECK_FALSE(pod["affinity"]["podAffinity"]);
  // Last branch: the generated pod affinity to the operator's own pods, per hostname.
  auto deployment = findObject(loadStrippedTemplate("deployment.yaml", Branch::Last), "Deployment");
  auto term = deployment["spec"]["template"]["spec"]["affinity"]["podAffinity"]
                        ["requiredDuringSchedulingIgnoredDuringExecution"][0];
  CHECK(term["topologyKey"].as<std::string>() == "kubernetes.io/hostname");
  CHECK(term["labelSelector"]["matchLabels"].IsDefined());
  auto text = readText(sourcePath("helm/troupe/templates/deployment.yaml"));
  CHECK(text.find("else if and .Values.persistence.enabled .Values.persistence.colocateReplicas") !=
        std::string::npos);
}

TEST_CASE("the metrics Service selects the operator pods and targets the metrics port",
          "[helm][deployment]") {
  auto service = findObject(loadStrippedTemplate("metrics-service.yaml"), "Service");
  REQUIRE(service["spec"]["ports"].size() == 1);
  CHECK(service["spec"]["ports"][0]["targetPort"].as<std::string>() == "metrics");
  auto monitor = findObject(loadStrippedTemplate("servicemonitor.yaml"), "ServiceMonitor");
  CHECK(monitor["spec"]["endpoints"][0]["port"].as<std::string>() == "metrics");
  CHECK(monitor["spec"]["endpoints"][0]["path"].as<std::string>() == "/metrics");
}

TEST_CASE("the dashboard Service selects the operator pods and targets the dashboard port",
          "[helm][deployment][dashboard]") {
  auto service = findObject(loadStrippedTemplate("dashboard-service.yaml"), "Service");
  REQUIRE(service["spec"]["ports"].size() == 1);
  CHECK(service["spec"]["ports"][0]["port"].as<std::string>() ==
        "TPL_.Values.dashboard.service.port");
  CHECK(service["spec"]["ports"][0]["targetPort"].as<std::string>() == "dashboard");
}

}  // namespace
}  // namespace troupe::helm_test
