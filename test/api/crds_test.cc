#include <catch2/catch.hpp>

#include "api/crd_manifests.h"
#include "api/well_known.h"
#include "test/api/crd_support.h"

// The CRDs in crds/ are what a real kube-apiserver accepts: structural schemas (checked
// by openapi::Schema the way the apiserver checks them) and well-formed names,
// subresources and printer columns.
namespace troupe::api {
namespace {

using nlohmann::json;

struct CrdCase {
  std::string file;
  std::string kind;
  std::string plural;
  std::string short_name;
  std::string scope;
  bool scale;
  bool status = true;  // a status subresource
};

TEST_CASE("every CRD is structural and names its kind as Troupe expects", "[api][crds]") {
  std::vector<CrdCase> cases = {
      {"trainingjobs.troupe.dev.yaml", "TrainingJob", "trainingjobs", "tj", "Namespaced", true},
      {"queues.troupe.dev.yaml", "Queue", "queues", "q", "Cluster", false},
      {"podgroups.troupe.dev.yaml", "PodGroup", "podgroups", "pg", "Namespaced", false},
      // Written only by administrators; nothing writes a status.
      {"gputypes.troupe.dev.yaml", "GPUType", "gputypes", "gput", "Cluster", false, false},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.file) {
      json crd = testing::loadCrd(tc.file);
      CHECK(crd["apiVersion"] == "apiextensions.k8s.io/v1");
      CHECK(crd["kind"] == "CustomResourceDefinition");
      CHECK(crd["metadata"]["name"] == tc.plural + "." + std::string(kGroup));
      CHECK(crd["spec"]["group"] == kGroup);
      CHECK(crd["spec"]["scope"] == tc.scope);
      const json& names = crd["spec"]["names"];
      CHECK(names["kind"] == tc.kind);
      CHECK(names["listKind"] == tc.kind + "List");
      CHECK(names["plural"] == tc.plural);
      CHECK(names["shortNames"] == json::array({tc.short_name}));
      CHECK(names["categories"] == json::array({"troupe"}));
      REQUIRE(crd["spec"]["versions"].size() == 1);
      const json& version = crd["spec"]["versions"][0];
      CHECK(version["name"] == kVersion);
      CHECK(version["served"] == true);
      CHECK(version["storage"] == true);
      if (tc.status) {
        CHECK(version["subresources"]["status"] == json::object());
      } else {
        CHECK_FALSE(version.contains("subresources"));
      }
      if (tc.scale) {
        CHECK(version["subresources"]["scale"] ==
              json({{"specReplicasPath", ".spec.replicas"},
                    {"statusReplicasPath", ".status.replicas"},
                    {"labelSelectorPath", ".status.selector"}}));
      } else if (version.contains("subresources")) {
        CHECK_FALSE(version["subresources"].contains("scale"));
      }
      auto problems = openapi::Schema::check(version["schema"]["openAPIV3Schema"],
                                             "spec.versions[0].schema.openAPIV3Schema");
      for (const auto& p : problems) FAIL_CHECK(p.describe());
      // Printer columns: simple JSON paths, known types, Age last.
      const json& columns = version["additionalPrinterColumns"];
      REQUIRE(columns.size() >= 3);
      for (const auto& column : columns) {
        CHECK(column["jsonPath"].get<std::string>().rfind('.', 0) == 0);
        std::string type = column["type"];
        CHECK((type == "string" || type == "integer" || type == "number" || type == "boolean" ||
               type == "date"));
      }
      CHECK(columns.back()["name"] == "Age");
      CHECK(columns.back()["jsonPath"] == ".metadata.creationTimestamp");
    }
  }
}

TEST_CASE("the CRD defaults are the ones api/ fills in while decoding", "[api][crds]") {
  auto schema = testing::crdSchema("trainingjobs.troupe.dev.yaml");
  json job = {{"apiVersion", "troupe.dev/v1alpha1"},
              {"kind", "TrainingJob"},
              {"metadata", {{"name", "x"}}},
              {"spec",
               {{"queue", "q"},
                {"replicas", 1},
                {"topology", {{"level", "troupe.dev/rack"}}},
                {"template", {{"spec", {{"containers", {{{"name", "c"}, {"image", "i"}}}}}}}}}}};
  schema.applyDefaults(job);
  CHECK(job["spec"]["preemptible"] == true);
  CHECK(job["spec"]["suspend"] == false);
  CHECK(job["spec"]["restartPolicy"] == json({{"maxRestarts", 3}, {"backoffSeconds", 10}}));
  CHECK(job["spec"]["topology"]["mode"] == "Preferred");

  auto queue_schema = testing::crdSchema("queues.troupe.dev.yaml");
  json queue = {
      {"apiVersion", "troupe.dev/v1alpha1"}, {"kind", "Queue"}, {"metadata", {{"name", "q"}}}};
  queue_schema.applyDefaults(queue);
  CHECK(queue["spec"] ==
        json({{"priority", 0},
              {"preemption",
               {{"withinQueue", "LowerPriority"}, {"reclaim", true}, {"minRuntimeSeconds", 0}}},
              {"gpuTypeFungibility",
               {{"whenCanBorrow", "Borrow"}, {"whenCanPreempt", "TryNextType"}}}}));
}

TEST_CASE("the CRDs compiled into troupe are the files in crds/", "[api][crds]") {
  REQUIRE(crdManifests().size() == 4);
  for (const auto& manifest : crdManifests()) {
    DYNAMIC_SECTION(manifest.file) {
      CHECK(manifest.yaml == testing::readFile(std::string(TROUPE_SOURCE_DIR) + "/crds/" +
                                               std::string(manifest.file)));
      CHECK(testing::loadCrd(std::string(manifest.file))["spec"]["names"]["kind"] == manifest.kind);
    }
  }
  CHECK(findCrdManifest("Queue") != nullptr);
  CHECK(findCrdManifest("Widget") == nullptr);
}

}  // namespace
}  // namespace troupe::api
