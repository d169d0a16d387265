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
