// Pure pieces of the REST layer: patches, server-side apply, selectors, printing helpers,
// routing and the token file.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "apiserver/auth/authorizer.h"
#include "apiserver/auth/token_file.h"
#include "apiserver/handlers/content.h"
#include "apiserver/handlers/patch.h"
#include "apiserver/handlers/selectors.h"
#include "apiserver/handlers/table.h"
#include "apiserver/router.h"

namespace troupe::apiserver {
namespace {

using json = nlohmann::json;

TEST_CASE("strategic merge patch merges keyed lists and honours directives", "[apiserver][patch]") {
  json pod = {
      {"spec",
       {{"containers", {{{"name", "a"}, {"image", "a:1"}}, {{"name", "b"}, {"image", "b:1"}}}},
        {"tolerations", {{{"key", "x"}}}}}},
      {"metadata", {{"finalizers", {"f1"}}}}};
  struct Case {
    std::string name;
    json patch;
    json want_containers;
  };
  std::vector<Case> cases = {
      {"an element merges with the one of the same name",
       {{"spec", {{"containers", {{{"name", "b"}, {"image", "b:2"}}}}}}},
       {{{"name", "a"}, {"image", "a:1"}}, {{"name", "b"}, {"image", "b:2"}}}},
      {"a new name is appended",
       {{"spec", {{"containers", {{{"name", "c"}, {"image", "c:1"}}}}}}},
       {{{"name", "a"}, {"image", "a:1"}},
        {{"name", "b"}, {"image", "b:1"}},
        {{"name", "c"}, {"image", "c:1"}}}},
      {"$patch: delete removes the element",
       {{"spec",
         {{"containers", {{{"name", "a"}, {"$patch", "delete"}}}},
          {"$setElementOrder/containers", {{{"name", "b"}}}}}}},
       {{{"name", "b"}, {"image", "b:1"}}}},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto result = applyStrategicPatch(pod, tc.patch);
      CHECK(result["spec"]["containers"] == tc.want_containers);
      CHECK_FALSE(result["spec"].contains("$setElementOrder/containers"));
    }
  }
  // Lists without a merge key are replaced; finalizers are a set.
  auto replaced = applyStrategicPatch(
      pod, {{"spec", {{"tolerations", {{{"key", "y"}}}}}}, {"metadata", {{"finalizers", {"f2"}}}}});
  CHECK(replaced["spec"]["tolerations"] == json::array({{{"key", "y"}}}));
  CHECK(replaced["metadata"]["finalizers"] == json::array({"f1", "f2"}));
}

TEST_CASE("server-side apply records owners, refuses conflicts and forces them",
          "[apiserver][apply]") {
  ApplyRequest operator_apply{"troupe-operator", false, "troupe.dev/v1alpha1", "", Clock::now()};
  json config = {{"apiVersion", "troupe.dev/v1alpha1"},
                 {"kind", "TrainingJob"},
                 {"metadata", {{"name", "j"}, {"namespace", "ns"}}},
                 {"spec", {{"queue", "q"}, {"replicas", 2}}}};
  auto created = serverSideApply(nullptr, config, operator_apply);
  REQUIRE(created.ok());
  json object = created.value();
  REQUIRE(object["metadata"]["managedFields"].size() == 1);
  CHECK(object["metadata"]["managedFields"][0]["fieldsV1"] ==
        json({{"f:spec",
               {{".", json::object()},
                {"f:queue", json::object()},
                {"f:replicas", json::object()}}}}));

  // someone else sets replicas to 3: conflict; same value: no conflict.
  ApplyRequest other{"someone-else", false, "troupe.dev/v1alpha1", "", Clock::now()};
  json change = config;
  change["spec"] = {{"replicas", 3}};
  auto refused = serverSideApply(object, change, other);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == 409);
  CHECK(refused.error().status["message"] ==
        "Apply failed with 1 conflict: conflict with \"troupe-operator\": .spec.replicas");
  CHECK(refused.error().status["details"]["causes"][0]["reason"] == "FieldManagerConflict");
  json same = config;
  same["spec"] = {{"replicas", 2}};
  CHECK(serverSideApply(object, same, other).ok());

  other.force = true;
  auto forced = serverSideApply(object, change, other);
  REQUIRE(forced.ok());
  CHECK(forced.value()["spec"]["replicas"] == 3);
  // replicas moved to someone-else; troupe-operator keeps queue.
  for (const auto& entry : forced.value()["metadata"]["managedFields"]) {
    if (entry["manager"] == "troupe-operator")
      CHECK_FALSE(entry["fieldsV1"]["f:spec"].contains("f:replicas"));
    if (entry["manager"] == "someone-else")
      CHECK(entry["fieldsV1"]["f:spec"].contains("f:replicas"));
  }

  // A field the manager stops applying, owned by nobody else, is removed.
  json smaller = config;
  smaller["spec"] = {{"replicas", 2}};
  auto shrunk = serverSideApply(object, smaller, operator_apply);
  REQUIRE(shrunk.ok());
  CHECK_FALSE(shrunk.value()["spec"].contains("queue"));
}

TEST_CASE("label and field selectors select as kube-apiserver does", "[apiserver][selectors]") {
  json object = {{"metadata", {{"name", "p"}, {"labels", {{"team", "nlp"}, {"tier", "gpu"}}}}},
                 {"spec", {{"nodeName", "n1"}}},
                 {"status", {{"phase", "Running"}}}};
  struct Case {
    std::string selector;
    bool want;
  };
  std::vector<Case> labels = {
      {"team=nlp", true},         {"team==nlp,tier=gpu", true}, {"team!=nlp", false},
      {"team in (a, nlp)", true}, {"team notin (nlp)", false},  {"tier", true},
      {"!tier", false},           {"missing!=x", true},         {"", true}};
  for (const auto& tc : labels) {
    DYNAMIC_SECTION("labels " << tc.selector) {
      auto selector = LabelSelector::parse(tc.selector);
      REQUIRE(selector.ok());
      CHECK(selector->matches(object) == tc.want);
    }
  }
  std::vector<Case> fields = {{"metadata.name=p", true},
                              {"spec.nodeName=n2", false},
                              {"status.phase!=Pending", true},
                              {"spec.schedulerName=", true}};
  for (const auto& tc : fields) {
    DYNAMIC_SECTION("fields " << tc.selector) {
      auto selector = FieldSelector::parse(tc.selector);
      REQUIRE(selector.ok());
      CHECK(selector->matches(object) == tc.want);
    }
  }
  CHECK_FALSE(FieldSelector::parse("metadata.name").ok());
}

TEST_CASE("ages and JSONPath cells print as kubectl shows them", "[apiserver][table]") {
  using std::chrono::seconds;
  CHECK(humanDuration(seconds(0)) == "0s");
  CHECK(humanDuration(seconds(101)) == "101s");
  CHECK(humanDuration(seconds(303)) == "5m3s");
  CHECK(humanDuration(seconds(3 * 3600)) == "3h");
  CHECK(humanDuration(seconds(12 * 86400)) == "12d");
  json object = {
      {"status",
       {{"conditions",
         {{{"type", "Ready"}, {"status", "True"}}, {{"type", "X"}, {"status", "False"}}}}}}};
  auto ready = evalJsonPath(object, ".status.conditions[?(@.type==\"Ready\")].status");
  REQUIRE(ready.size() == 1);
  CHECK(ready[0] == "True");
  CHECK(evalJsonPath(object, ".status.conditions[1].type") == std::vector<json>{"X"});
  CHECK(evalJsonPath(object, ".spec.missing").empty());
  // Printer columns escape dots inside a resource name.
  json queue = {{"spec", {{"resources", {{"nvidia.com/gpu", {{"limit", "16"}}}}}}}};
  CHECK(evalJsonPath(queue, R"(.spec.resources.nvidia\.com/gpu.limit)") == std::vector<json>{"16"});
  CHECK(evalJsonPath(queue, ".spec.resources.nvidia.com/gpu.limit").empty());
}

TEST_CASE("routes match literal segments, captures and a captured rest", "[apiserver][router]") {
  auto params = Router::match("/apis/{group}/{version}/{rest...}",
                              "/apis/troupe.dev/v1alpha1/namespaces/a/trainingjobs");
  REQUIRE(params);
  CHECK(params->at("group") == "troupe.dev");
  CHECK(params->at("rest") == "namespaces/a/trainingjobs");
  CHECK_FALSE(Router::match("/apis/{group}/{version}/{rest...}", "/apis/troupe.dev/v1alpha1"));
  CHECK(Router::match("/api", "/api"));
  CHECK_FALSE(Router::match("/api", "/api/v1"));
}

TEST_CASE("kubectl's Accept headers pick Table, aggregated discovery or JSON",
          "[apiserver][content]") {
  CHECK(negotiate("application/json;as=Table;v=v1;g=meta.k8s.io,application/"
                  "json;as=Table;v=v1beta1;g=meta.k8s.io,application/json",
                  false) == Representation::Table);
  CHECK(negotiate(
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json",
            true) == Representation::AggregatedDiscoveryV2);
  CHECK(negotiate("application/vnd.kubernetes.protobuf,application/json", false) ==
        Representation::Object);
  CHECK(negotiate("application/vnd.kubernetes.protobuf", false) == Representation::Unacceptable);
  CHECK(negotiate("", false) == Representation::Object);
}

TEST_CASE("the token file names the line and rule it breaks", "[apiserver][auth]") {
  auto file = auth::TokenFile::parse(
      "# comment\nadmin-token-0123456789 admin *\nalice-token-0123456789 alice namespace:team-a\n",
      "tokens");
  REQUIRE(file.ok());
  auto alice = file->authenticate("Bearer alice-token-0123456789");
  REQUIRE(alice);
  CHECK(alice->ns == "team-a");
  CHECK(file->adminToken() == "admin-token-0123456789");
  CHECK_FALSE(file->authenticate("Bearer nope"));

  auth::Attributes own{"create", "troupe.dev", "trainingjobs", "", "team-a", "j"};
  CHECK(auth::allowed(*alice, own));
  auth::Attributes queues{"list", "troupe.dev", "queues", "", "", ""};
  CHECK(auth::allowed(*alice, queues));
  queues.verb = "create";
  CHECK_FALSE(auth::allowed(*alice, queues));
  CHECK(auth::forbiddenMessage(*alice, queues) ==
        "queues.troupe.dev is forbidden: User \"alice\" cannot create resource \"queues\" in API "
        "group \"troupe.dev\" at the cluster scope");

  auto bad = auth::TokenFile::parse("short admin *\n", "tokens");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().field_path == "tokens:1");
  auto bad_scope = auth::TokenFile::parse("admin-token-0123456789 admin everything\n", "tokens");
  REQUIRE_FALSE(bad_scope.ok());
  CHECK(bad_scope.error().message.find("scope must be") != std::string::npos);
}

}  // namespace
}  // namespace troupe::apiserver

#include "apiserver/handlers/yaml_json.h"
#include "apiserver/objects/crd_schema_validator.h"
#include "apiserver/registry/resource_registry.h"
#include "test/support/in_process_server.h"

namespace troupe::apiserver {
namespace {

TEST_CASE("the CRD schema validator defaults and reports field errors", "[apiserver][validation]") {
  auto crd = yamlDocumentsToJson(testing::fixture("crd-trainingjobs.yaml"));
  REQUIRE(crd.ok());
  auto kinds = kindsFromCrd(crd->front());
  REQUIRE(kinds.ok());
  REQUIRE(kinds->front().schema);
  REQUIRE(kinds->front().schema->is_object());
  CrdSchemaValidator validator;
  json job = {{"apiVersion", "troupe.dev/v1alpha1"},
              {"kind", "TrainingJob"},
              {"metadata", {{"name", "x"}}},
              {"spec", {{"queue", "q"}, {"replicas", 0}}}};
  auto causes = validator.check(kinds->front(), job);
  REQUIRE(causes.size() >= 1);
  CHECK(causes[0].field == "spec.replicas");
  CHECK(job["spec"]["gpusPerReplica"] == 0);
}

}  // namespace
}  // namespace troupe::apiserver
