#include <catch2/catch.hpp>

#include "test/helm/chart_files.h"
#include "test/helm/schema_check.h"

// The chart rendered as Helm renders it, every object checked against the schema of its
// kind, unknown fields reported as `kubectl apply --validate=strict` reports them: the
// built-in kinds against the OpenAPI schemas of kube-apiserver 1.28 (testdata/, recorded
// from a real server by scripts/check-chart-on-cluster --record-schemas, which also applies
// the same output to that server with --dry-run=server), Troupe's kinds against crds/.
namespace troupe::helm_test {
namespace {

const char* kKubeSchemas = "test/helm/testdata/kube-openapi-v1.28.json";

// Kinds of other projects the chart may render, whose schemas are not here.
const std::set<std::string> kWithoutSchema = {"monitoring.coreos.com/v1 ServiceMonitor",
                                              "cert-manager.io/v1 Issuer",
                                              "cert-manager.io/v1 Certificate"};

struct KindSchema {
  YAML::Node schema;
  YAML::Node root;  // resolves $ref
  bool namespaced = true;
};

std::map<std::string, KindSchema> schemasByKind() {
  std::map<std::string, KindSchema> out;
  auto kube = YAML::LoadFile(sourcePath(kKubeSchemas).string());
  for (const auto& entry : kube["kinds"]) {
    auto definition = entry.second["definition"].as<std::string>();
    REQUIRE(kube["definitions"][definition].IsDefined());
    out[entry.first.as<std::string>()] = {kube["definitions"][definition], kube,
                                          entry.second["namespaced"].as<bool>()};
  }
  for (const auto& [kind, schema] : crdSchemas()) {
    // Queues are cluster-scoped, PodGroups and TrainingJobs namespaced (crds/).
    out["troupe.dev/v1alpha1 " + kind] = {schema, schema, kind != "Queue"};
  }
  return out;
}

TEST_CASE(
    "the chart renders with its default values and with the two-level example into valid "
    "objects of their kinds",
    "[helm][render]") {
  auto schemas = schemasByKind();
  struct Case {
    std::string name;
    std::vector<std::string> values;
    std::map<std::string, int> want_kinds;  // how many objects of some kinds
  };
  std::vector<Case> cases = {
      {"default values",
       {},
       {{"Deployment", 1},
        {"ServiceAccount", 1},
        {"ClusterRole", 3},
        {"Role", 1},
        {"PriorityClass", 3},
        {"FlowSchema", 1},
        {"PriorityLevelConfiguration", 1},
        {"Queue", 0},
        {"ServiceMonitor", 0},
        {"ValidatingWebhookConfiguration", 1},
        {"Secret", 1},
        {"Service", 2}}},
      {"two-level organisation",
       {kTwoLevelValues},
       {{"Deployment", 1}, {"Queue", 6}, {"ServiceMonitor", 1}}},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto documents = renderChart(tc.values);
      std::map<std::string, int> kinds;
      for (const auto& doc : documents) {
        const auto kind = doc["kind"].as<std::string>("");
        const auto key = doc["apiVersion"].as<std::string>("") + " " + kind;
        const auto name = doc["metadata"]["name"].as<std::string>("");
        ++kinds[kind];
        INFO(key << " " << name);
        CHECK_FALSE(name.empty());
        CHECK(doc["metadata"]["labels"]["app.kubernetes.io/instance"].as<std::string>("") ==
              kReleaseName);
        if (kWithoutSchema.count(key)) continue;
        REQUIRE(schemas.count(key) == 1);
        const auto& kind_schema = schemas.at(key);
        for (const auto& problem :
             schemaProblems(doc, kind_schema.schema, kind_schema.root, UnknownFields::Reported))
          FAIL_CHECK(problem);
        if (kind_schema.namespaced) {
          CHECK(doc["metadata"]["namespace"].as<std::string>("") == kReleaseNamespace);
        } else {
          CHECK_FALSE(doc["metadata"]["namespace"]);
        }
      }
      for (const auto& [kind, want] : tc.want_kinds) {
        INFO(kind);
        CHECK(kinds[kind] == want);
      }
    }
  }
}

TEST_CASE("the two-level example's values reach the Deployment and the Queues as given",
          "[helm][render]") {
  auto documents = renderChart({kTwoLevelValues});
  auto deployment = findObject(documents, "Deployment");
  const auto& pod = deployment["spec"]["template"]["spec"];
  CHECK(pod["containers"][0]["image"].as<std::string>() ==
        "registry.example.com/platform/troupe:0.1.0");
  CHECK(pod["nodeSelector"]["node-role.example.com/system"].as<std::string>() == "true");
  CHECK(pod["tolerations"][0]["key"].as<std::string>() == "node-role.example.com/system");
  auto args = pod["containers"][0]["args"].as<std::vector<std::string>>();
  CHECK(std::count(args.begin(), args.end(),
                   "--topology-levels=topology.example.com/block,topology.example.com/rack") == 1);
  // vision lends at most 32 of its 64 guaranteed GPUs.
  auto vision = findObject(documents, "Queue", "vision");
  CHECK(vision["spec"]["parent"].as<std::string>() == "research");
  CHECK(vision["spec"]["resources"]["nvidia.com/gpu"]["lendingLimit"].as<std::string>() == "32");
  auto pvc = findObject(documents, "PersistentVolumeClaim");
  CHECK(pvc["spec"]["storageClassName"].as<std::string>() == "standard-rwo");
  CHECK(pvc["spec"]["resources"]["requests"]["storage"].as<std::string>() == "5Gi");
}

// The dashboard's address as the operator gets it, and the dashboard's Services.
struct DashboardRendering {
  std::vector<std::string> addresses;  // every --dashboard-addr
  std::vector<YAML::Node> services;    // Services that target the dashboard port
};

DashboardRendering renderDashboard(const std::vector<std::string>& values) {
  DashboardRendering out;
  auto documents = renderChart(values);
  auto container = findObject(documents, "Deployment")["spec"]["template"]["spec"]["containers"][0];
  for (const auto& arg : container["args"].as<std::vector<std::string>>())
    if (arg.rfind("--dashboard-addr=", 0) == 0) out.addresses.push_back(arg.substr(17));
  for (const auto& doc : documents)
    if (doc["kind"].as<std::string>("") == "Service" &&
        doc["spec"]["ports"][0]["targetPort"].as<std::string>("") == "dashboard")
      out.services.push_back(doc);
  return out;
}

TEST_CASE(
    "the operator serves the dashboard on its pod's loopback by default, and on every address "
    "behind a Service when asked",
    "[helm][render][dashboard]") {
  // Default values: reached through kubectl port-forward, so no Service and no other address.
  auto plain = renderDashboard({});
  CHECK(plain.addresses == std::vector<std::string>{"127.0.0.1:8082"});
  CHECK(plain.services.empty());

  auto served = renderDashboard({"test/helm/testdata/values-dashboard-service.yaml"});
  CHECK(served.addresses == std::vector<std::string>{":9090"});
  REQUIRE(served.services.size() == 1);
  CHECK(served.services[0]["spec"]["ports"][0]["port"].as<int>() == 80);
  CHECK(served.services[0]["spec"]["selector"]["app.kubernetes.io/instance"].as<std::string>() ==
        kReleaseName);

  auto off = renderDashboard({"test/helm/testdata/values-dashboard-off.yaml"});
  CHECK(off.addresses.empty());
  CHECK(off.services.empty());
}

}  // namespace
}  // namespace troupe::helm_test
