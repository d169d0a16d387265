#include <map>

#include <catch2/catch.hpp>

#include "test/helm/chart_files.h"

namespace troupe::helm_test {
namespace {

const char* kPlainPods = "examples/cluster-mode/pytorch-ddp-plain-pods.yaml";

std::map<std::string, std::string> envOf(const YAML::Node& container) {
  std::map<std::string, std::string> env;
  for (const auto& var : container["env"])
    env[var["name"].as<std::string>()] = var["value"].as<std::string>("");
  return env;
}

TEST_CASE(
    "the plain-pod PyTorch job is one gang: every pod is Troupe's, labelled with its "
    "PodGroup, ranked once",
    "[helm][examples]") {
  auto documents = loadDocuments(sourcePath(kPlainPods));
  auto group = findObject(documents, "PodGroup");
  auto service = findObject(documents, "Service");
  CHECK(group["apiVersion"].as<std::string>() == "troupe.dev/v1alpha1");
  auto group_name = group["metadata"]["name"].as<std::string>();
  auto namespace_name = group["metadata"]["namespace"].as<std::string>();
  auto min_member = group["spec"]["minMember"].as<int>();
  CHECK_FALSE(group["spec"]["queue"].as<std::string>("").empty());
  CHECK(group["spec"]["scheduleTimeoutSeconds"].as<int>() > 0);

  // The PriorityClass is one the chart creates.
  auto values = YAML::LoadFile(sourcePath("helm/troupe/values.yaml").string());
  std::set<std::string> chart_classes;
  for (const auto& c : values["priorityClasses"]["classes"])
    chart_classes.insert(c["name"].as<std::string>());
  CHECK(chart_classes.count(group["spec"]["priorityClassName"].as<std::string>()) == 1);

  // The headless Service gives the pods DNS names before they are ready.
  CHECK(service["spec"]["clusterIP"].as<std::string>() == "None");
  CHECK(service["spec"]["publishNotReadyAddresses"].as<bool>());
  auto master_port = service["spec"]["ports"][0]["port"].as<std::string>();

  std::set<int> ranks;
  std::map<std::string, int> gpus_by_resource;
  int pods = 0;
  std::string master_dns;
  for (const auto& document : documents) {
    if (document["kind"].as<std::string>() != "Pod") continue;
    ++pods;
    auto name = document["metadata"]["name"].as<std::string>();
    {
      INFO("pod " << name);
      auto spec = document["spec"];
      CHECK(document["metadata"]["namespace"].as<std::string>() == namespace_name);
      CHECK(spec["schedulerName"].as<std::string>() == "troupe");
      CHECK(document["metadata"]["labels"]["troupe.dev/pod-group"].as<std::string>() == group_name);
      CHECK(spec["priorityClassName"].as<std::string>() ==
            group["spec"]["priorityClassName"].as<std::string>());
      CHECK(spec["subdomain"].as<std::string>() == service["metadata"]["name"].as<std::string>());
      for (const auto& selector : service["spec"]["selector"])
        CHECK(document["metadata"]["labels"][selector.first.as<std::string>()].as<std::string>(
                  "") == selector.second.as<std::string>());

      auto env = envOf(spec["containers"][0]);
      CHECK(env["WORLD_SIZE"] == std::to_string(min_member));
      CHECK(env["MASTER_PORT"] == master_port);
      REQUIRE_FALSE(env["RANK"].empty());
      int rank = std::stoi(env["RANK"]);
      CHECK(ranks.insert(rank).second);
      if (rank == 0)
        master_dns = spec["hostname"].as<std::string>() + "." + spec["subdomain"].as<std::string>();
      CHECK(env["MASTER_ADDR"] == "bert-pretrain-master.bert-pretrain");
      for (const auto& request : spec["containers"][0]["resources"]["requests"])
        if (request.first.as<std::string>() == "nvidia.com/gpu" ||
            request.first.as<std::string>() == "cpu")
          gpus_by_resource[request.first.as<std::string>()] += request.second.as<int>();
    }
  }
  // A gang of minMember pods ranked 0..minMember-1, rank 0 being the MASTER_ADDR host.
  CHECK(pods == min_member);
  CHECK(ranks.size() == static_cast<size_t>(min_member));
  CHECK(*ranks.begin() == 0);
  CHECK(*ranks.rbegin() == min_member - 1);
  CHECK(master_dns == "bert-pretrain-master.bert-pretrain");
  // minResources is what the whole gang asks for: 4 pods x 8 GPUs = 32, x 32 CPUs = 128.
  CHECK(group["spec"]["minResources"]["nvidia.com/gpu"].as<int>() ==
        gpus_by_resource["nvidia.com/gpu"]);
  CHECK(group["spec"]["minResources"]["cpu"].as<int>() == gpus_by_resource["cpu"]);
}

// Keys of an override must exist in the chart's values, except below free-form settings
// (empty maps and lists in values.yaml, such as nodeSelector or queues).
void checkOverride(const YAML::Node& override_node, const YAML::Node& chart_node,
                   const std::string& path) {
  if (!override_node.IsMap()) return;
  if (chart_node.IsSequence() || (chart_node.IsMap() && chart_node.size() == 0)) return;
  for (const auto& entry : override_node) {
    auto key = entry.first.as<std::string>();
    auto key_path = path.empty() ? key : path + "." + key;
    DYNAMIC_SECTION(key_path) {
      const YAML::Node& chart_map = chart_node;
      REQUIRE(chart_map.IsMap());
      REQUIRE(chart_map[key].IsDefined());
      checkOverride(entry.second, chart_map[key], key_path);
    }
  }
}

TEST_CASE("the two-level organisation's values override only settings the chart has",
          "[helm][examples]") {
  auto values = YAML::LoadFile(sourcePath("helm/troupe/values.yaml").string());
  auto example = YAML::LoadFile(sourcePath(kTwoLevelValues).string());
  checkOverride(example, values, "");
}

TEST_CASE(
    "the two-level organisation is a tree of two levels whose guarantees fit their "
    "parents",
    "[helm][examples]") {
  auto example = YAML::LoadFile(sourcePath(kTwoLevelValues).string());
  std::map<std::string, YAML::Node> queues;
  for (const auto& queue : example["queues"])
    queues.emplace(queue["name"].as<std::string>(), static_cast<const YAML::Node&>(queue["spec"]));
  REQUIRE(queues.size() == 6);

  std::map<std::string, std::map<std::string, long>> children_guaranteed;
  std::map<std::string, long> roots_guaranteed;
  for (const auto& [name, spec] : queues) {
    {
      INFO("queue " << name);
      auto policy = spec["preemption"]["withinQueue"].as<std::string>();
      CHECK((policy == "LowerPriority" || policy == "Never"));
      spec["preemption"]["reclaim"].as<bool>();  // throws unless a boolean
      for (const auto& entry : spec["resources"]) {
        auto resource = entry.first.as<std::string>();
        auto guaranteed = std::stol(entry.second["guaranteed"].as<std::string>());
        auto limit = std::stol(entry.second["limit"].as<std::string>());
        CHECK(guaranteed <= limit);
        if (entry.second["lendingLimit"])
          CHECK(std::stol(entry.second["lendingLimit"].as<std::string>()) <= guaranteed);
        if (spec["parent"]) {
          auto parent = spec["parent"].as<std::string>();
          REQUIRE(queues.count(parent) == 1);
          CHECK_FALSE(queues.at(parent)["parent"]);  // two levels: the parent is a root
          children_guaranteed[parent][resource] += guaranteed;
        } else if (resource == "nvidia.com/gpu") {
          roots_guaranteed[name] = guaranteed;
        }
      }
    }
  }
  // research: nlp 96 + vision 64 = 160 <= 160; product: search 64 + ads 32 = 96 <= 96.
  for (const auto& [parent, sums] : children_guaranteed)
    for (const auto& [resource, sum] : sums) {
      INFO(parent << " " << resource);
      CHECK(sum <=
            std::stol(queues.at(parent)["resources"][resource]["guaranteed"].as<std::string>()));
    }
  // The divisions share a 256-GPU cluster: 160 + 96 = 256.
  CHECK(roots_guaranteed["research"] + roots_guaranteed["product"] == 256);
}

}  // namespace
}  // namespace troupe::helm_test
