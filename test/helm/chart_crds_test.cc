#include <map>

#include <catch2/catch.hpp>

#include "test/helm/chart_files.h"
#include "test/helm/schema_check.h"

namespace troupe::helm_test {
namespace {

std::map<std::string, std::string> yamlFilesIn(const std::string& relative_dir) {
  std::map<std::string, std::string> files;
  auto dir = sourcePath(relative_dir);
  if (!std::filesystem::exists(dir)) return files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().extension() == ".yaml")
      files[entry.path().filename().string()] = readText(entry.path());
  return files;
}

TEST_CASE("the chart's CRDs are byte-identical copies of crds/", "[helm][crds]") {
  auto sources = yamlFilesIn("crds");
  auto copies = yamlFilesIn("helm/troupe/crds");
  for (const auto& [name, text] : sources) {
    INFO("crds/" << name << " (scripts/sync-chart-crds copies it)");
    REQUIRE(copies.count(name) == 1);
    CHECK(copies.at(name) == text);
  }
  for (const auto& [name, text] : copies) {
    INFO("helm/troupe/crds/" << name << " has no source in crds/");
    CHECK(sources.count(name) == 1);
  }
}

TEST_CASE("the examples' Troupe objects use only fields the CRDs define", "[helm][crds]") {
  auto schemas = crdSchemas();
  // (kind, spec, where it comes from)
  std::vector<std::tuple<std::string, YAML::Node, std::string>> objects;
  for (const auto& document :
       loadDocuments(sourcePath("examples/cluster-mode/pytorch-ddp-plain-pods.yaml")))
    if (document["apiVersion"].as<std::string>() == "troupe.dev/v1alpha1")
      objects.emplace_back(document["kind"].as<std::string>(), document["spec"],
                           document["metadata"]["name"].as<std::string>());
  for (const auto& document : loadDocuments(sourcePath("examples/cluster-mode/trainingjob.yaml")))
    objects.emplace_back(document["kind"].as<std::string>(), document["spec"],
                         document["metadata"]["name"].as<std::string>());
  auto values =
      YAML::LoadFile(sourcePath("examples/cluster-mode/values-two-level-org.yaml").string());
  for (const auto& queue : values["queues"])
    objects.emplace_back("Queue", queue["spec"], "queue " + queue["name"].as<std::string>());
  // The YAML blocks of docs/cluster-mode.md (two Queues).
  auto docs = readText(sourcePath("docs/cluster-mode.md"));
  size_t blocks = 0;
  for (size_t at = docs.find("```yaml\n"); at != std::string::npos;
       at = docs.find("```yaml\n", at + 1)) {
    auto begin = at + 8;
    auto end = docs.find("```", begin);
    REQUIRE(end != std::string::npos);
    ++blocks;
    for (const auto& document : YAML::LoadAll(docs.substr(begin, end - begin)))
      objects.emplace_back(
          document["kind"].as<std::string>(), document["spec"],
          "docs/cluster-mode.md " + document["metadata"]["name"].as<std::string>());
  }
  CHECK(blocks == 1);
  REQUIRE(objects.size() == 10);

  for (const auto& [kind, spec, origin] : objects) {
    DYNAMIC_SECTION(kind << " " << origin) {
      if (schemas.count(kind) == 0) {
        WARN("crds/ has no troupe.dev/v1alpha1 " << kind << " yet; its fields go unchecked");
        continue;
      }
      const auto& schema = schemas.at(kind);
      for (const auto& problem : schemaProblems(spec, schema["properties"]["spec"], schema,
                                                UnknownFields::Reported, "spec"))
        FAIL_CHECK(problem);
    }
  }
}

}  // namespace
}  // namespace troupe::helm_test
