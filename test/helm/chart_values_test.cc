#include <regex>

#include <catch2/catch.hpp>

#include "test/helm/chart_files.h"

namespace troupe::helm_test {
namespace {

TEST_CASE("Chart.yaml is a v2 application chart whose appVersion is the project's version",
          "[helm][chart]") {
  auto chart = YAML::LoadFile(sourcePath("helm/troupe/Chart.yaml").string());
  CHECK(chart["apiVersion"].as<std::string>() == "v2");
  CHECK(chart["name"].as<std::string>() == "troupe");
  CHECK(chart["type"].as<std::string>() == "application");
  CHECK(std::regex_match(chart["version"].as<std::string>(), std::regex(R"(\d+\.\d+\.\d+)")));
  REQUIRE(chart["description"]);

  // The default image tag is appVersion, so it must name the version CMake builds.
  std::smatch project;
  auto cmake = readText(sourcePath("CMakeLists.txt"));
  REQUIRE(std::regex_search(cmake, project, std::regex(R"(project\(troupe VERSION (\S+))")));
  CHECK(chart["appVersion"].as<std::string>() == project[1].str());
}

TEST_CASE("values.yaml holds every setting the chart promises, with safe defaults",
          "[helm][chart][values]") {
  auto values = YAML::LoadFile(sourcePath("helm/troupe/values.yaml").string());
  struct Case {
    std::string path;
    YAML::NodeType::value want_type;
  };
  std::vector<Case> cases = {
      {"image.repository", YAML::NodeType::Scalar},
      {"image.tag", YAML::NodeType::Scalar},
      {"image.pullPolicy", YAML::NodeType::Scalar},
      {"replicas", YAML::NodeType::Scalar},
      {"resources", YAML::NodeType::Map},
      {"operator.logLevel", YAML::NodeType::Scalar},
      {"operator.topologyLevels", YAML::NodeType::Sequence},
      {"operator.kubeQPS", YAML::NodeType::Scalar},
      {"operator.kubeBurst", YAML::NodeType::Scalar},
      {"operator.stateDir", YAML::NodeType::Scalar},
      {"persistence.enabled", YAML::NodeType::Scalar},
      {"persistence.size", YAML::NodeType::Scalar},
      {"persistence.storageClass", YAML::NodeType::Scalar},
      {"metrics.service.enabled", YAML::NodeType::Scalar},
      {"metrics.serviceMonitor.enabled", YAML::NodeType::Scalar},
      {"priorityClasses.classes", YAML::NodeType::Sequence},
      {"nodeSelector", YAML::NodeType::Map},
      {"tolerations", YAML::NodeType::Sequence},
      {"affinity", YAML::NodeType::Map},
      {"podSecurityContext", YAML::NodeType::Map},
      {"queues", YAML::NodeType::Sequence},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.path) {
      auto node = nodeAt(values, tc.path);
      REQUIRE(node.IsDefined());
      CHECK(node.Type() == tc.want_type);
    }
  }

  // Two replicas: one leads, one stands by.
  CHECK(values["replicas"].as<int>() == 2);
  CHECK(values["operator"]["logLevel"].as<std::string>() == "info");
  CHECK(values["operator"]["kubeQPS"].as<int>() == 50);
  CHECK(values["operator"]["kubeBurst"].as<int>() == 100);
  CHECK(values["operator"]["topologyLevels"].as<std::vector<std::string>>() ==
        std::vector<std::string>{"troupe.dev/block", "troupe.dev/rack"});
  CHECK(values["persistence"]["enabled"].as<bool>());
  CHECK(values["metrics"]["serviceMonitor"]["enabled"].as<bool>() == false);
  CHECK(values["queues"].size() == 0);

  // The pod runs as the image's non-root user under the runtime's seccomp profile.
  auto pod_security = values["podSecurityContext"];
  CHECK(pod_security["runAsNonRoot"].as<bool>());
  CHECK(pod_security["runAsUser"].as<int>() == 65532);
  CHECK(pod_security["fsGroup"].as<int>() == 65532);
  CHECK(pod_security["seccompProfile"]["type"].as<std::string>() == "RuntimeDefault");
}

TEST_CASE(
    "the default PriorityClasses are high, normal and low, in that order of value, "
    "below the system classes",
    "[helm][chart][values]") {
  auto values = YAML::LoadFile(sourcePath("helm/troupe/values.yaml").string());
  auto classes = values["priorityClasses"]["classes"];
  REQUIRE(classes.size() == 3);
  std::vector<std::string> want_names = {"troupe-high", "troupe-normal", "troupe-low"};
  long previous = 1'000'000'000;  // user classes stay below 1e9; system ones start at 2e9
  for (size_t i = 0; i < classes.size(); ++i) {
    CHECK(classes[i]["name"].as<std::string>() == want_names[i]);
    auto value = classes[i]["value"].as<long>();
    CHECK(value < previous);
    CHECK(value > 0);
    CHECK_FALSE(classes[i]["description"].as<std::string>("").empty());
    previous = value;
  }
}

}  // namespace
}  // namespace troupe::helm_test
