#include <catch2/catch.hpp>

#include "test/helm/chart_files.h"
#include "test/helm/schema_check.h"

namespace troupe::helm_test {
namespace {

YAML::Node valuesSchema() {
  // JSON is YAML; yaml-cpp reads the schema as it is.
  return YAML::LoadFile(sourcePath("helm/troupe/values.schema.json").string());
}

// Helm checks the values it renders with: the user's merged over the chart's, maps key by
// key, anything else replaced whole.
YAML::Node merged(const YAML::Node& defaults, const YAML::Node& user) {
  if (!defaults.IsMap() || !user.IsMap()) return YAML::Clone(user);
  YAML::Node out = YAML::Clone(defaults);
  for (const auto& entry : user) {
    auto key = entry.first.as<std::string>();
    const YAML::Node& base = defaults;
    out[key] = base[key] ? merged(base[key], entry.second) : YAML::Clone(entry.second);
  }
  return out;
}

std::vector<std::string> problemsOf(const YAML::Node& user_values) {
  auto schema = valuesSchema();
  auto defaults = YAML::LoadFile(sourcePath("helm/troupe/values.yaml").string());
  return schemaProblems(merged(defaults, user_values), schema, schema,
                        UnknownFields::AllowedUnlessForbidden);
}

TEST_CASE(
    "the chart's defaults, alone and under the example values, satisfy "
    "values.schema.json",
    "[helm][values-schema]") {
  for (const auto* file :
       {"helm/troupe/values.yaml", "examples/cluster-mode/values-two-level-org.yaml"}) {
    DYNAMIC_SECTION(file) {
      for (const auto& problem : problemsOf(YAML::LoadFile(sourcePath(file).string())))
        FAIL_CHECK(problem);
    }
  }
}

TEST_CASE("values.schema.json declares every setting of values.yaml, and nothing else",
          "[helm][values-schema]") {
  auto schema = valuesSchema();
  auto values = YAML::LoadFile(sourcePath("helm/troupe/values.yaml").string());
  std::set<std::string> top_level;
  for (const auto& entry : schema["properties"]) top_level.insert(entry.first.as<std::string>());
  top_level.erase("global");  // set by a parent chart, never by this one
  std::set<std::string> in_values;
  for (const auto& entry : values) in_values.insert(entry.first.as<std::string>());
  CHECK(top_level == in_values);
  CHECK_FALSE(schema["additionalProperties"].as<bool>());
}

TEST_CASE("values.schema.json turns away bad values with the field and the rule",
          "[helm][values-schema]") {
  struct Case {
    std::string name;
    std::string values;
    std::vector<std::string> want_problems;
  };
  std::vector<Case> cases = {
      {"no replicas at all",
       "replicas: 0",
       {"replicas: Invalid value: 0: must be greater than or equal to 1"}},
      {"a misspelt setting", "replica: 3", {"replica: Unknown field"}},
      {"a misspelt nested setting",
       "persistence: {enable: false}",
       {"persistence.enable: Unknown field"}},
      {"a log level the operator does not know",
       "operator: {logLevel: loud}",
       {"operator.logLevel: Unsupported value: loud: supported values: \"debug\", \"info\", "
        "\"warn\", \"error\""}},
      {"a quoted boolean",
       "persistence: {enabled: \"false\"}",
       {"persistence.enabled: Invalid value: \"false\": must be of type boolean"}},
      {"a rate limit of zero",
       "operator: {kubeQPS: 0}",
       {"operator.kubeQPS: Invalid value: 0: must be greater than 0"}},
      {"a relative state directory",
       "operator: {stateDir: data}",
       {"operator.stateDir: Invalid value: data: must match ^/"}},
      {"an access mode Kubernetes does not have",
       "persistence: {accessModes: [ReadOnce]}",
       {"persistence.accessModes[0]: Unsupported value: ReadOnce: supported values: "
        "\"ReadWriteOnce\", \"ReadWriteMany\", \"ReadWriteOncePod\""}},
      {"a PriorityClass in the system range",
       "priorityClasses: {classes: [{name: urgent, value: 2000000000}]}",
       {"priorityClasses.classes[0].value: Invalid value: 2000000000: must be less than or "
        "equal to 1000000000"}},
      {"a queue without a spec, and one with a name Kubernetes rejects",
       "queues: [{name: team-a}, {name: Team_B, spec: {}}]",
       {"queues[0].spec: Required value",
        "queues[1].name: Invalid value: Team_B: must match "
        "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"}},
      {"a scrape interval without a unit",
       "metrics: {serviceMonitor: {interval: 30}}",
       {"metrics.serviceMonitor.interval: Invalid value: 30: must be of type string"}},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) { CHECK(problemsOf(YAML::Load(tc.values)) == tc.want_problems); }
  }
}

}  // namespace
}  // namespace troupe::helm_test
