#include <catch2/catch.hpp>

#include <cstdlib>
#include <random>

#include "api/pod_group.h"
#include "api/queue.h"
#include "api/training_job.h"
#include "api/validated.h"
#include "test/api/crd_support.h"

// Randomly broken manifests: whatever the CRD schema refuses, the C++ validation refuses
// too (it is the stricter of the two), nothing crashes, and every error names a field.
// Deterministic: the seed is fixed and printed; TROUPE_TEST_SCALE multiplies the rounds.
namespace troupe::api {
namespace {

using nlohmann::json;

int scale() {
  const char* s = std::getenv("TROUPE_TEST_SCALE");
  return s == nullptr ? 1 : std::max(1, std::atoi(s));
}

// Every JSON pointer in `value`, objects and arrays included.
void pointers(const json& value, const std::string& prefix, std::vector<std::string>& out) {
  if (value.is_object()) {
    for (const auto& [key, child] : value.items()) {
      std::string escaped = key;
      for (size_t at = 0; (at = escaped.find('~', at)) != std::string::npos; at += 2)
        escaped.replace(at, 1, "~0");
      for (size_t at = 0; (at = escaped.find('/', at)) != std::string::npos; at += 2)
        escaped.replace(at, 1, "~1");
      std::string p = prefix + "/" + escaped;
      out.push_back(p);
      pointers(child, p, out);
    }
  } else if (value.is_array()) {
    for (size_t i = 0; i < value.size(); ++i) {
      std::string p = prefix + "/" + std::to_string(i);
      out.push_back(p);
      pointers(value[i], p, out);
    }
  }
}

const std::vector<json>& replacements() {
  static const std::vector<json> values = {-1,
                                           0,
                                           1,
                                           100001,
                                           3000000000LL,
                                           1.5,
                                           "",
                                           "x",
                                           "Team A",
                                           "-1",
                                           "1.5",
                                           "64Gi",
                                           "lots",
                                           true,
                                           nullptr,
                                           json::object(),
                                           json::array(),
                                           json::array({1}),
                                           "2025-01-01T00:00:00Z",
                                           "Required",
                                           "Queued",
                                           "True",
                                           json({{"a", 1}})};
  return values;
}

template <typename T>
void mutate(const std::string& crd_file, const json& base, uint32_t seed) {
  auto schema = testing::crdSchema(crd_file);
  std::mt19937 rng(seed);
  int rounds = 300 * scale();
  int schema_rejections = 0;
  for (int round = 0; round < rounds; ++round) {
    json object = base;
    int changes = 1 + static_cast<int>(rng() % 3);
    for (int c = 0; c < changes; ++c) {
      std::vector<std::string> all;
      pointers(object["spec"], "/spec", all);
      if (object.contains("status")) pointers(object["status"], "/status", all);
      if (all.empty()) break;
      json::json_pointer p(all[rng() % all.size()]);
      if (rng() % 4 == 0) {
        json& parent = object[p.parent_pointer()];
        if (parent.is_object()) parent.erase(p.back());
      } else {
        object[p] = replacements()[rng() % replacements().size()];
      }
    }
    auto typed = decodeAndValidate<T>(object).errors;
    auto structural = testing::schemaErrors(schema, object);
    for (const auto& e : typed) CHECK_FALSE(e.field_path.empty());
    if (!structural.empty()) {
      ++schema_rejections;
      INFO("seed " << seed << " round " << round << ": " << object.dump());
      INFO("schema: " << structural[0].describe());
      CHECK_FALSE(typed.empty());
    }
  }
  // The mutations must actually exercise the schema (most of them break something).
  CHECK(schema_rejections > rounds / 4);
}

TEST_CASE("whatever the CRD schemas refuse, the C++ validation refuses", "[api][crd-mutation]") {
  const uint32_t seed = 20261123;
  INFO("seed " << seed);
  auto job_docs = parseYamlDocuments(
      testing::readFile(std::string(TROUPE_SOURCE_DIR) + "/examples/10-rigid-gang.yaml"));
  REQUIRE(job_docs.ok());
  json job = job_docs->front();
  job["status"] = {
      {"phase", "Queued"},
      {"queuedAt", "2025-01-01T00:00:00Z"},
      {"conditions",
       {{{"type", "Admitted"},
         {"status", "False"},
         {"lastTransitionTime", "2025-01-01T00:00:00Z"}}}},
      {"pending", {{"reason", "QueueAtLimit"}, {"limit", {{"nvidia.com/gpu", "96"}}}}}};
  mutate<TrainingJob>("trainingjobs.troupe.dev.yaml", job, seed);

  auto queue_docs = parseYamlDocuments(
      testing::readFile(std::string(TROUPE_SOURCE_DIR) + "/examples/02-queues.yaml"));
  REQUIRE(queue_docs.ok());
  json queue = (*queue_docs)[2];
  queue["status"] = {{"allocated", {{"nvidia.com/gpu", "8"}}}, {"running", 1}};
  mutate<Queue>("queues.troupe.dev.yaml", queue, seed + 1);

  json group = {{"apiVersion", "troupe.dev/v1alpha1"},
                {"kind", "PodGroup"},
                {"metadata", {{"name", "g"}, {"namespace", "team-b"}}},
                {"spec",
                 {{"minMember", 3},
                  {"queue", "team-b"},
                  {"minResources", {{"cpu", "4"}}},
                  {"scheduleTimeoutSeconds", 60}}},
                {"status", {{"phase", "Pending"}, {"scheduled", 0}}}};
  mutate<PodGroup>("podgroups.troupe.dev.yaml", group, seed + 2);
}

}  // namespace
}  // namespace troupe::api
