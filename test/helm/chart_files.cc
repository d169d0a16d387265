#include "test/helm/chart_files.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "test/helm/template_text.h"
#include "test/support/command.h"

namespace troupe::helm_test {

std::filesystem::path sourcePath(const std::string& relative) {
  return std::filesystem::path(TROUPE_SOURCE_DIR) / relative;
}

std::string readText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  INFO("reading " << path.string());
  REQUIRE(in.good());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

namespace {

std::vector<YAML::Node> parseDocuments(const std::string& text, const std::string& origin) {
  std::vector<YAML::Node> documents;
  try {
    for (auto& document : YAML::LoadAll(text))
      if (!document.IsNull()) documents.push_back(document);
  } catch (const YAML::Exception& e) {
    FAIL(origin << " is not valid YAML: " << e.what() << "\n" << text);
  }
  return documents;
}

}  // namespace

std::vector<YAML::Node> loadDocuments(const std::filesystem::path& path) {
  return parseDocuments(readText(path), path.string());
}

std::vector<YAML::Node> loadStrippedTemplate(const std::string& file_name, Branch keep) {
  auto path = sourcePath("helm/troupe/templates/" + file_name);
  auto stripped = stripActions(readText(path), keep);
  INFO(path.string());
  REQUIRE(stripped.ok());
  return parseDocuments(*stripped, path.string() + " (actions taken out)");
}

std::vector<std::filesystem::path> templateFiles() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(sourcePath("helm/troupe/templates")))
    if (entry.is_regular_file()) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<YAML::Node> renderChart(const std::vector<std::string>& value_files,
                                    const std::vector<std::string>& api_versions) {
  std::string command = std::string(TROUPE_CHART_RENDER) + " --release-name " + kReleaseName +
                        " --namespace " + kReleaseNamespace;
  for (const auto& file : value_files) command += " -f " + sourcePath(file).string();
  for (const auto& version : api_versions) command += " --api-versions " + version;
  command += " " + sourcePath("helm/troupe").string();
  auto rendered = troupe::testing::runCommand(command, true);
  INFO(command << "\n" << rendered.output);
  REQUIRE(rendered.exit_code == 0);
  std::vector<YAML::Node> documents;
  for (const auto& doc : YAML::LoadAll(rendered.output))
    if (doc.IsDefined() && !doc.IsNull()) documents.push_back(doc);
  return documents;
}

std::map<std::string, YAML::Node> crdSchemas() {
  std::map<std::string, YAML::Node> schemas;
  for (const auto& entry : std::filesystem::directory_iterator(sourcePath("crds"))) {
    if (entry.path().extension() != ".yaml") continue;
    for (const auto& document : YAML::LoadAll(readText(entry.path()))) {
      if (document["kind"].as<std::string>("") != "CustomResourceDefinition") continue;
      if (document["spec"]["group"].as<std::string>("") != "troupe.dev") continue;
      for (const auto& version : document["spec"]["versions"])
        if (version["name"].as<std::string>("") == "v1alpha1")
          schemas.emplace(document["spec"]["names"]["kind"].as<std::string>(),
                          static_cast<const YAML::Node&>(version["schema"]["openAPIV3Schema"]));
    }
  }
  return schemas;
}

YAML::Node findObject(const std::vector<YAML::Node>& documents, const std::string& kind,
                      const std::string& name_suffix) {
  for (const auto& document : documents) {
    if (!document["kind"] || document["kind"].as<std::string>() != kind) continue;
    auto name = document["metadata"]["name"].as<std::string>("");
    if (name.size() >= name_suffix.size() &&
        name.compare(name.size() - name_suffix.size(), name_suffix.size(), name_suffix) == 0)
      return document;
  }
  FAIL("no " << kind << " named *" << name_suffix);
  return {};
}

namespace {

void collectLeaves(const YAML::Node& node, const std::string& prefix, std::set<std::string>& out) {
  if (!node.IsMap() || node.size() == 0) {
    out.insert(prefix);
    return;
  }
  for (const auto& entry : node) {
    auto key = entry.first.as<std::string>();
    collectLeaves(entry.second, prefix.empty() ? key : prefix + "." + key, out);
  }
}

}  // namespace

std::set<std::string> leafPaths(const YAML::Node& node) {
  std::set<std::string> out;
  if (node.IsMap())
    for (const auto& entry : node) collectLeaves(entry.second, entry.first.as<std::string>(), out);
  return out;
}

YAML::Node nodeAt(const YAML::Node& root, const std::string& dotted_path) {
  // reset() rebinds the handle; assigning one yaml-cpp node to another would overwrite the
  // tree it points into.
  YAML::Node node;
  node.reset(root);
  size_t start = 0;
  while (start <= dotted_path.size()) {
    size_t dot = dotted_path.find('.', start);
    std::string key =
        dotted_path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    const YAML::Node& current = node;
    if (!current.IsMap() || !current[key]) return YAML::Node(YAML::NodeType::Undefined);
    node.reset(current[key]);
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return node;
}

}  // namespace troupe::helm_test
