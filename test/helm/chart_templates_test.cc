#include <catch2/catch.hpp>

#include "test/helm/chart_files.h"
#include "test/helm/template_text.h"

namespace troupe::helm_test {
namespace {

bool isPrefixPath(const std::string& prefix, const std::string& path) {
  return path == prefix ||
         (path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0 &&
          path[prefix.size()] == '.');
}

std::set<std::string> allValueReferences() {
  std::set<std::string> refs;
  for (const auto& file : templateFiles()) refs.merge(valueReferences(readText(file)));
  return refs;
}

TEST_CASE(
    "every template's control flow is balanced and its YAML parses once actions are "
    "taken out",
    "[helm][templates]") {
  for (const auto& file : templateFiles()) {
    auto name = file.filename().string();
    DYNAMIC_SECTION(name) {
      auto stripped = stripActions(readText(file));
      INFO((stripped.ok() ? "" : stripped.error().describe()));
      REQUIRE(stripped.ok());
      if (file.extension() != ".yaml") continue;  // _helpers.tpl, NOTES.txt: text, not YAML
      // Read once keeping the first branch of every if/else, once keeping the last.
      auto documents = loadStrippedTemplate(name, Branch::First);
      auto other_side = loadStrippedTemplate(name, Branch::Last);
      documents.insert(documents.end(), other_side.begin(), other_side.end());
      REQUIRE_FALSE(documents.empty());
      for (const auto& document : documents) {
        REQUIRE(document.IsMap());
        CHECK(document["apiVersion"].IsScalar());
        CHECK(document["kind"].IsScalar());
        CHECK(document["metadata"]["name"].IsScalar());
        // Every object carries the chart's labels: a lone include line under `labels:`.
        CHECK(document["metadata"]["labels"].IsDefined());
      }
      CHECK(readText(file).find("include \"troupe.labels\"") != std::string::npos);
    }
  }
}

TEST_CASE("templates name only values that values.yaml defines", "[helm][templates][values]") {
  auto values = YAML::LoadFile(sourcePath("helm/troupe/values.yaml").string());
  for (const auto& file : templateFiles()) {
    for (const auto& path : valueReferences(readText(file))) {
      DYNAMIC_SECTION(file.filename().string() << ": .Values." << path) {
        CHECK(nodeAt(values, path).IsDefined());
      }
    }
  }
}

TEST_CASE("every setting in values.yaml is used by some template", "[helm][templates][values]") {
  auto values = YAML::LoadFile(sourcePath("helm/troupe/values.yaml").string());
  auto refs = allValueReferences();
  for (const auto& leaf : leafPaths(values)) {
    DYNAMIC_SECTION(leaf) {
      bool used = false;
      for (const auto& ref : refs)
        used = used || isPrefixPath(ref, leaf) || isPrefixPath(leaf, ref);
      CHECK(used);
    }
  }
}

TEST_CASE("every included template is defined in _helpers.tpl, and every definition is used",
          "[helm][templates]") {
  auto helpers = readText(sourcePath("helm/troupe/templates/_helpers.tpl"));
  auto defined = definedTemplates(helpers);
  REQUIRE(defined.count("troupe.fullname") == 1);
  std::set<std::string> included;
  for (const auto& file : templateFiles()) included.merge(includedTemplates(readText(file)));
  for (const auto& name : included) {
    DYNAMIC_SECTION("included: " << name) { CHECK(defined.count(name) == 1); }
  }
  for (const auto& name : defined) {
    DYNAMIC_SECTION("defined: " << name) { CHECK(included.count(name) == 1); }
  }
}

TEST_CASE("the chart holds the objects an operator install needs", "[helm][templates]") {
  struct Case {
    std::string file;
    std::string want_kind;
  };
  std::vector<Case> cases = {
      {"deployment.yaml", "Deployment"},
      {"serviceaccount.yaml", "ServiceAccount"},
      {"clusterrole.yaml", "ClusterRole"},
      {"clusterrole.yaml", "ClusterRoleBinding"},
      {"leader-election-role.yaml", "Role"},
      {"leader-election-role.yaml", "RoleBinding"},
      {"metrics-service.yaml", "Service"},
      {"servicemonitor.yaml", "ServiceMonitor"},
      {"state-pvc.yaml", "PersistentVolumeClaim"},
      {"priorityclasses.yaml", "PriorityClass"},
      {"queues.yaml", "Queue"},
      {"user-roles.yaml", "ClusterRole"},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.file << " has a " << tc.want_kind) {
      auto documents = loadStrippedTemplate(tc.file);
      findObject(documents, tc.want_kind);
    }
  }
  auto notes = readText(sourcePath("helm/troupe/templates/NOTES.txt"));
  CHECK(notes.find("kind: Queue") != std::string::npos);
  CHECK(notes.find("kubectl get tj") != std::string::npos);
}

TEST_CASE(
    "Queues from values are cluster-scoped troupe.dev/v1alpha1 objects with the spec "
    "passed through",
    "[helm][templates]") {
  auto queue = findObject(loadStrippedTemplate("queues.yaml"), "Queue");
  CHECK(queue["apiVersion"].as<std::string>() == "troupe.dev/v1alpha1");
  CHECK_FALSE(queue["metadata"]["namespace"]);
  CHECK(readText(sourcePath("helm/troupe/templates/queues.yaml")).find("toYaml") !=
        std::string::npos);
}

}  // namespace
}  // namespace troupe::helm_test
