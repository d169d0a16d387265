#include "simulator/trace.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace troupe::simulator {
namespace {

constexpr const char* kHeader =
    "job_id,submit_time_s,num_gpus,duration_s,virtual_cluster,final_status\n";

TEST_CASE("a trace is read by column name and sorted by submit time, ties kept in file order",
          "[simulator][trace]") {
  std::string text = std::string(kHeader) +
                     "b,20,8,100,vc1,\n"
                     "a,10,1,50,vc2,\n"
                     "c,10,4,5.0,vc1,\n";
  auto jobs = parseTrace(text, "t.csv");
  REQUIRE(jobs.ok());
  REQUIRE(jobs->size() == 3);
  // a and c share t=10: a comes first in the file.
  CHECK((*jobs)[0].id == "a");
  CHECK((*jobs)[1].id == "c");
  CHECK((*jobs)[1].duration_s == 5);
  CHECK((*jobs)[2].id == "b");
  CHECK((*jobs)[2].gpus == 8);
  CHECK((*jobs)[2].queue == "vc1");
}

TEST_CASE("bad trace lines are errors naming the line and the column", "[simulator][trace]") {
  struct Case {
    std::string name;
    std::string text;
    std::string want_field;
  };
  std::vector<Case> cases = {
      {"a missing column", "job_id,submit_time_s,num_gpus,virtual_cluster\n", "t.csv:1:duration_s"},
      {"negative GPUs", std::string(kHeader) + "a,1,-1,5,vc,\n", "t.csv:2:num_gpus"},
      {"words for a time", std::string(kHeader) + "a,soon,1,5,vc,\n", "t.csv:2:submit_time_s"},
      {"a fractional duration", std::string(kHeader) + "a,1,1,5.5,vc,\n", "t.csv:2:duration_s"},
      {"a short line", std::string(kHeader) + "a,1,1\n", "t.csv:2:*"},
      {"a duplicate id", std::string(kHeader) + "a,1,1,5,vc,\na,2,1,5,vc,\n", "t.csv:3:job_id"},
      {"no queue", std::string(kHeader) + "a,1,1,5,,\n", "t.csv:2:virtual_cluster"},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto jobs = parseTrace(tc.text, "t.csv");
      REQUIRE_FALSE(jobs.ok());
      CHECK(jobs.error().field_path == tc.want_field);
    }
  }
}

constexpr const char* kSharingHeader =
    "job_id,submit_time_s,num_gpus,gpu_milli,cpu_milli,memory_mib,duration_s,qos_class,"
    "gpu_spec\n";

TEST_CASE("a trace with gpu_milli is read as pods with GPU shares, CPU, memory and no team",
          "[simulator][trace]") {
  std::string text = std::string(kSharingHeader) +
                     "p0,5,1,460,6000,12288,100,LS,\n"
                     "p1,6,8,1000,96000,393216,,BE,V100M32|V100M16\n"
                     "p2,7,1,1000,0,0,3,BE,\n";
  auto jobs = parseTrace(text, "pods.csv");
  REQUIRE(jobs.ok());
  REQUIRE(jobs->size() == 3);
  // p0 shares one GPU: 460 thousandths of it; no virtual cluster, so no queue.
  CHECK((*jobs)[0].gpu_milli == 460);
  CHECK((*jobs)[0].gpuMilli() == 460);
  CHECK((*jobs)[0].cpu_milli == 6000);
  CHECK((*jobs)[0].memory_mib == 12288);
  CHECK((*jobs)[0].queue.empty());
  CHECK((*jobs)[0].qos_class == "LS");
  // p1 was never scheduled (no duration) and accepts two models, kept sorted.
  CHECK((*jobs)[1].never_ran);
  CHECK((*jobs)[1].gpuMilli() == 8000);
  CHECK((*jobs)[1].gpu_types == std::vector<std::string>{"V100M16", "V100M32"});
  // 1000 thousandths of one GPU is the whole GPU.
  CHECK((*jobs)[2].gpu_milli == 0);
  CHECK((*jobs)[2].gpuMilli() == 1000);
}

TEST_CASE("bad GPU shares are errors naming the line and the column", "[simulator][trace]") {
  struct Case {
    std::string name;
    std::string line;
    std::string want_field;
  };
  std::vector<Case> cases = {
      {"a share of no GPU", "a,1,0,500,1,1,5,LS,", "t.csv:2:gpu_milli"},
      {"a share of two GPUs", "a,1,2,500,1,1,5,LS,", "t.csv:2:gpu_milli"},
      {"more than a whole GPU", "a,1,1,1500,1,1,5,LS,", "t.csv:2:gpu_milli"},
      {"negative CPU", "a,1,1,500,-1,1,5,LS,", "t.csv:2:cpu_milli"},
      {"words for a duration", "a,1,1,500,1,1,long,LS,", "t.csv:2:duration_s"},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto jobs = parseTrace(std::string(kSharingHeader) + tc.line + "\n", "t.csv");
      REQUIRE_FALSE(jobs.ok());
      CHECK(jobs.error().field_path == tc.want_field);
    }
  }
  // The sharing shape needs its CPU column; a Philly-shaped trace still needs its team.
  auto missing = parseTrace("job_id,submit_time_s,num_gpus,gpu_milli,duration_s\n", "t.csv");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().field_path == "t.csv:1:cpu_milli");
}

TEST_CASE("a window keeps jobs submitted from its start up to, not including, its end",
          "[simulator][trace]") {
  std::vector<TraceJob> jobs(5);
  for (int i = 0; i < 5; ++i) jobs[i].submit_s = i * 10;
  auto window = selectWindow(jobs, 10, 40);
  // 10, 20, 30 are in; 40 is the open end.
  REQUIRE(window.size() == 3);
  CHECK(window.front().submit_s == 10);
  CHECK(window.back().submit_s == 30);
}

TEST_CASE("the shipped Philly trace parses in full", "[simulator][trace]") {
  auto jobs = readTrace(std::string(TROUPE_SOURCE_DIR) + "/test/simulator/data/philly_slice.csv");
  REQUIRE(jobs.ok());
  CHECK(jobs->size() > 100);
  for (size_t i = 1; i < jobs->size(); ++i) {
    CHECK((*jobs)[i - 1].submit_s <= (*jobs)[i].submit_s);
  }
}

}  // namespace
}  // namespace troupe::simulator
