#include <catch2/catch.hpp>

#include <map>

#include "cli/gang_line.h"
#include "test/cli/objects.h"

using namespace troupe::cli;
using namespace troupe::cli::testing;

TEST_CASE("a waiting gang's place in line: priority, then time queued, then name",
          "[cli][gang-line]") {
  ClusterObjects objects;
  objects.priority_classes = {priorityClass("high", 10000), priorityClass("normal", 1000)};
  objects.training_jobs = {
      trainingJob("ns", "old-normal", "q", "Queued", "normal", "2025-01-01T00:00:00Z"),
      trainingJob("ns", "new-high", "q", "Queued", "high", "2025-01-01T00:05:00Z"),
      trainingJob("ns", "b-tie", "q", "Queued", "normal", "2025-01-01T00:01:00Z"),
      trainingJob("ns", "a-tie", "q", "", "normal", "2025-01-01T00:01:00Z"),  // new: waits too
      trainingJob("ns", "running", "q", "Running", "high", "2024-12-31T00:00:00Z"),
      trainingJob("ns", "done", "q", "Succeeded", "high", "2024-12-31T00:00:00Z"),
      trainingJob("other", "elsewhere", "r", "Queued", "", "2025-01-01T00:00:00Z"),
  };
  auto gangs = gangsOf(objects);
  std::vector<std::string> order;
  for (const auto& g : gangs) order.push_back(g.name + "#" + std::to_string(g.position));
  // Queue q: new-high first for its priority; old-normal before the ties for its time; the
  // ties by name; then the running gang and the finished one, out of line. Queue r after.
  CHECK(order == std::vector<std::string>{"new-high#1", "old-normal#2", "a-tie#3", "b-tie#4",
                                          "running#0", "done#0", "elsewhere#1"});
  CHECK(gangs[0].line_length == 4);
  CHECK(gangs[0].priority == 10000);
  CHECK(gangs[0].gpus == 8);
  CHECK(gangs[6].priority == 0);  // no class: priority 0
}

TEST_CASE("a TrainingJob's own PodGroup is not a gang of its own", "[cli][gang-line]") {
  ClusterObjects objects;
  objects.training_jobs = {trainingJob("ns", "job", "q", "Queued", "", "2025-01-01T00:00:00Z")};
  objects.pod_groups = {
      {{"metadata",
        {{"namespace", "ns"}, {"name", "job"}, {"ownerReferences", {{{"kind", "TrainingJob"}}}}}},
       {"spec", {{"queue", "q"}, {"minMember", 1}}}},
      {{"metadata",
        {{"namespace", "ns"}, {"name", "mpi"}, {"creationTimestamp", "2025-01-01T00:00:01Z"}}},
       {"spec", {{"queue", "q"}, {"minMember", 4}, {"minResources", {{"nvidia.com/gpu", "32"}}}}},
       {"status", {{"phase", "Pending"}}}},
  };
  auto gangs = gangsOf(objects);
  REQUIRE(gangs.size() == 2);
  CHECK(gangs[1].kind == "PodGroup");
  CHECK(gangs[1].name == "mpi");
  CHECK(gangs[1].gpus == 32);
  CHECK(gangs[1].position == 2);
}

TEST_CASE("a PodGroup without minResources counts its pods' GPUs", "[cli][gang-line]") {
  auto pod = [](const char* name, nlohmann::json labels, nlohmann::json owners, int gpus) {
    return nlohmann::json{
        {"metadata",
         {{"namespace", "ns"}, {"name", name}, {"labels", labels}, {"ownerReferences", owners}}},
        {"spec",
         {{"containers",
           {{{"name", "c"},
             {"resources", {{"requests", {{"nvidia.com/gpu", std::to_string(gpus)}}}}}}}}}}};
  };
  ClusterObjects objects;
  objects.pod_groups = {
      {{"metadata", {{"namespace", "ns"}, {"name", "mpi"}}},
       {"spec", {{"queue", "q"}, {"minMember", 2}}}},
      {{"metadata",
        {{"namespace", "ns"},
         {"name", "lone"},
         {"ownerReferences", {{{"kind", "Pod"}, {"name", "solo"}}}}}},
       {"spec", {{"queue", "q"}, {"minMember", 1}}}},
  };
  objects.pods = {
      pod("mpi-0", {{"troupe.dev/pod-group", "mpi"}}, nlohmann::json::array(), 3),
      pod("mpi-1", {{"troupe.dev/pod-group", "mpi"}}, nlohmann::json::array(), 3),
      pod("solo", nlohmann::json::object(), nlohmann::json::array(), 1),
      pod("stranger", {{"troupe.dev/pod-group", "other"}}, nlohmann::json::array(), 8),
  };
  auto gangs = gangsOf(objects);
  REQUIRE(gangs.size() == 2);
  std::map<std::string, double> gpus;
  for (const auto& g : gangs) gpus[g.name] = g.gpus;
  // mpi: its two members' 3 + 3; lone: the pod that owns it; the stranger counts for neither.
  CHECK(gpus["mpi"] == 6);
  CHECK(gpus["lone"] == 1);
}
