#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

#include "api/core/node.h"
#include "api/core/pod.h"
#include "api/core/priority_class.h"
#include "api/gpu_type.h"
#include "api/names.h"
#include "api/pod_group.h"
#include "api/queue.h"
#include "api/training_job.h"
#include "api/validated.h"
#include "api/well_known.h"
#include "test/api/crd_support.h"

// Every manifest in examples/ (the files `kubectl apply -f examples/` reads) decodes,
// validates with api/ and with the CRD schemas, and refers only to things the examples
// create: namespaces, queues, priority classes, pod groups, GPU types.
namespace troupe::api {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

struct Document {
  std::string file;
  json object;
};

std::vector<Document> exampleDocuments() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(std::string(TROUPE_SOURCE_DIR) + "/examples")) {
    auto ext = entry.path().extension();
    if (entry.is_regular_file() && (ext == ".yaml" || ext == ".yml" || ext == ".json"))
      files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());  // kubectl's order
  std::vector<Document> docs;
  for (const auto& file : files) {
    auto parsed = parseYamlDocuments(testing::readFile(file.string()));
    if (!parsed.ok()) FAIL(file.filename().string() << ": " << parsed.error().describe());
    for (auto& object : *parsed) docs.push_back({file.filename().string(), std::move(object)});
  }
  return docs;
}

template <typename T>
T checkTroupeKind(const Document& doc, const openapi::Schema& schema) {
  auto v = decodeAndValidate<T>(doc.object);
  for (const auto& e : v.errors) FAIL_CHECK(doc.file << ": " << e.describe());
  json copy = doc.object;
  auto pruned = schema.prune(copy);
  for (const auto& field : pruned) FAIL_CHECK(doc.file << ": unknown field " << field);
  schema.applyDefaults(copy);
  for (const auto& e : schema.validate(copy)) FAIL_CHECK(doc.file << ": " << e.describe());
  CHECK_FALSE(doc.object.contains("status"));
  return v.object;
}

TEST_CASE("every example decodes, validates and refers to things the examples create",
          "[api][examples]") {
  auto docs = exampleDocuments();
  REQUIRE(docs.size() > 10);
  auto job_schema = testing::crdSchema("trainingjobs.troupe.dev.yaml");
  auto queue_schema = testing::crdSchema("queues.troupe.dev.yaml");
  auto group_schema = testing::crdSchema("podgroups.troupe.dev.yaml");
  auto gpu_type_schema = testing::crdSchema("gputypes.troupe.dev.yaml");

  std::set<std::string> namespaces, queues, priority_classes, pod_groups, gpu_types;
  std::vector<GpuType> gpu_type_objects;
  std::vector<std::map<std::string, std::string>> node_labels;
  std::vector<std::string> queue_parents;
  struct Reference {
    std::string file, what, name;
  };
  std::vector<Reference> references;
  std::map<std::string, std::map<std::string, int>> gpus_by_rack;
  bool seen_non_namespace = false;

  for (const auto& doc : docs) {
    std::string kind = doc.object.value("kind", "");
    const json& metadata = doc.object.value("metadata", json::object());
    std::string name = metadata.value("name", "");
    std::string ns = metadata.value("namespace", "");
    INFO(doc.file << ": " << kind << " " << name);
    CHECK_FALSE(checkDnsSubdomain(name).has_value());
    if (!ns.empty()) references.push_back({doc.file, "namespace", ns});

    if (kind == "Namespace") {
      CHECK_FALSE(seen_non_namespace);  // namespaces come first
      CHECK_FALSE(checkDnsLabel(name).has_value());
      namespaces.insert(name);
      continue;
    }
    seen_non_namespace = true;
    std::vector<Error> errors;
    if (kind == "PriorityClass") {
      auto pc = core::PriorityClass::fromJson(doc.object, errors);
      priority_classes.insert(pc.metadata.name);
    } else if (kind == "GPUType") {
      auto t = checkTroupeKind<GpuType>(doc, gpu_type_schema);
      gpu_types.insert(t.metadata.name);
      gpu_type_objects.push_back(t);
    } else if (kind == "Queue") {
      auto q = checkTroupeKind<Queue>(doc, queue_schema);
      queues.insert(q.metadata.name);
      if (!q.spec.parent.empty()) references.push_back({doc.file, "queue", q.spec.parent});
      if (auto gpu = q.spec.resources.find(std::string(kGpuResource));
          gpu != q.spec.resources.end())
        for (const auto& t : gpu->second.gpu_types)
          references.push_back({doc.file, "GPU type", t.name});
    } else if (kind == "TrainingJob") {
      auto job = checkTroupeKind<TrainingJob>(doc, job_schema);
      CHECK_FALSE(ns.empty());
      references.push_back({doc.file, "queue", job.spec.queue});
      if (!job.spec.priority_class_name.empty())
        references.push_back({doc.file, "priority class", job.spec.priority_class_name});
      for (const auto& t : job.spec.gpu_types) references.push_back({doc.file, "GPU type", t});
      // Jobs finish in the simulated cluster.
      CHECK(job.spec.template_annotations.count(std::string(kSimDurationAnnotation)) == 1);
    } else if (kind == "PodGroup") {
      auto group = checkTroupeKind<PodGroup>(doc, group_schema);
      pod_groups.insert(ns + "/" + group.metadata.name);
      references.push_back({doc.file, "queue", group.spec.queue});
    } else if (kind == "Pod") {
      auto pod = core::Pod::fromJson(doc.object, errors);
      core::validatePodSpec(pod.spec, "spec", errors);
      CHECK(pod.spec.scheduler_name == kSchedulerName);
      CHECK(pod.metadata.annotations.count(std::string(kSimDurationAnnotation)) == 1);
      // A pod joins a PodGroup, or is a gang of one in the queue it names.
      auto group = pod.metadata.labels.find(std::string(kPodGroupLabel));
      auto queue = pod.metadata.labels.find(std::string(kQueueLabel));
      REQUIRE((group != pod.metadata.labels.end()) != (queue != pod.metadata.labels.end()));
      if (group != pod.metadata.labels.end())
        references.push_back({doc.file, "pod group", ns + "/" + group->second});
      else
        references.push_back({doc.file, "queue", queue->second});
      if (!pod.spec.priority_class_name.empty())
        references.push_back({doc.file, "priority class", pod.spec.priority_class_name});
    } else if (kind == "Node") {
      auto node = core::Node::fromJson(doc.object, errors);
      auto topology = node.gpuTopology();
      REQUIRE(topology.has_value());
      CHECK(topology->ok());
      std::string rack = node.label(std::string(kRackLabel));
      CHECK_FALSE(rack.empty());
      CHECK_FALSE(node.label(std::string(kBlockLabel)).empty());
      CHECK(node.allocatable.count(std::string(kGpuResource)) == 1);
      node_labels.push_back(node.metadata.labels);
      gpus_by_rack[rack][node.metadata.name] =
          static_cast<int>(node.allocatable[std::string(kGpuResource)].value());
      CHECK_FALSE(doc.object["status"].contains("conditions"));
    } else {
      FAIL_CHECK("an example of a kind Troupe does not read: " << kind);
    }
    for (const auto& e : errors) FAIL_CHECK(doc.file << ": " << e.describe());
  }

  for (const auto& ref : references) {
    INFO(ref.file << " refers to " << ref.what << " " << ref.name);
    const std::set<std::string>& known = ref.what == "namespace"        ? namespaces
                                         : ref.what == "queue"          ? queues
                                         : ref.what == "priority class" ? priority_classes
                                         : ref.what == "GPU type"       ? gpu_types
                                                                        : pod_groups;
    CHECK(known.count(ref.name) == 1);
  }

  // The demo cluster: 4 racks x 4 nodes x 8 GPUs.
  CHECK(gpus_by_rack.size() == 4);
  for (const auto& [rack, nodes] : gpus_by_rack) {
    CHECK(nodes.size() == 4);
    for (const auto& [node, gpus] : nodes) CHECK(gpus == 8);
  }
  CHECK(queues == std::set<std::string>{"org", "team-a", "team-b"});
  // Two GPU types, 8 nodes each, every node of exactly one.
  CHECK(gpu_types == std::set<std::string>{"a100", "h100"});
  for (const auto& type : gpu_type_objects) {
    int nodes = 0;
    for (const auto& labels : node_labels) nodes += type.spec.matches(labels) ? 1 : 0;
    CHECK(nodes == 8);
  }
}

}  // namespace
}  // namespace troupe::api
