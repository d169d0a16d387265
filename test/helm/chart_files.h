#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "test/helm/template_text.h"

// The repository files the chart's tests read: the chart, its templates with their actions
// taken out, the examples. Failing to read or parse one fails the calling test with the
// file's name.
namespace troupe::helm_test {

// A path inside the source tree: sourcePath("helm/troupe/values.yaml").
std::filesystem::path sourcePath(const std::string& relative);

std::string readText(const std::filesystem::path& path);

// Every document of a YAML file; empty documents (a lone `---`) are left out.
std::vector<YAML::Node> loadDocuments(const std::filesystem::path& path);

// A template of helm/troupe/templates/ after stripActions, parsed; empty documents left out.
std::vector<YAML::Node> loadStrippedTemplate(const std::string& file_name,
                                             Branch keep = Branch::First);

// The release the tests render the chart as.
inline constexpr const char* kReleaseName = "troupe";
inline constexpr const char* kReleaseNamespace = "troupe-system";
// The values of the two-level organisation example, which several tests render.
inline constexpr const char* kTwoLevelValues = "examples/cluster-mode/values-two-level-org.yaml";

// helm/troupe rendered as `helm template troupe helm/troupe -n troupe-system -f FILE...`
// renders it (chart-render, helm/render/), one node per document; fails the test with
// chart-render's message when rendering fails. `api_versions` are group versions the
// cluster is taken to serve (.Capabilities.APIVersions, `helm template --api-versions`).
std::vector<YAML::Node> renderChart(const std::vector<std::string>& value_files = {},
                                    const std::vector<std::string>& api_versions = {});

// The openAPIV3Schema of each troupe.dev kind at v1alpha1, from crds/, by kind.
std::map<std::string, YAML::Node> crdSchemas();

// The files of helm/troupe/templates/, sorted by name.
std::vector<std::filesystem::path> templateFiles();

// The first document of `documents` whose kind is `kind` and whose metadata.name ends with
// `name_suffix`; fails the test when there is none.
YAML::Node findObject(const std::vector<YAML::Node>& documents, const std::string& kind,
                      const std::string& name_suffix = "");

// The dotted paths of a YAML tree down to its leaves: scalars, sequences and empty maps
// ("image.tag", "priorityClasses.classes").
std::set<std::string> leafPaths(const YAML::Node& node);

// The node at a dotted path, or an undefined node.
YAML::Node nodeAt(const YAML::Node& root, const std::string& dotted_path);

}  // namespace troupe::helm_test
