// `troupe sim` on a trace of the Alibaba 2023 shape (pods with GPU fractions, CPU and
// memory, no teams) and a node list: run through the real binary, as a user would.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "test/support/command.h"
#include "test/support/temp_dir.h"

namespace troupe::simulator {
namespace {

std::vector<std::string> split(const std::string& line, char by) {
  std::vector<std::string> out;
  std::stringstream in(line);
  for (std::string cell; std::getline(in, cell, by);) out.push_back(cell);
  return out;
}

// jobs.csv as id -> (start_s, end_s), and id -> gpu_milli in `shares`.
std::map<std::string, std::pair<std::string, std::string>> startsAndEnds(
    const std::string& path, std::map<std::string, std::string>& shares) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  const auto header = split(line, ',');
  auto column = [&](const std::string& name) {
    return static_cast<size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  std::map<std::string, std::pair<std::string, std::string>> out;
  while (std::getline(in, line)) {
    auto cells = split(line, ',');
    cells.resize(header.size());
    out[cells[column("id")]] = {cells[column("start_s")], cells[column("end_s")]};
    shares[cells[column("id")]] = cells[column("gpu_milli")];
  }
  return out;
}

TEST_CASE("half-GPU pods share a GPU in a replay, a whole-GPU pod waits for an unshared one",
          "[simulator][gpu-sharing]") {
  testing::TempDir dir;
  // One node of 2 T4 GPUs and one CPU-only node.
  const std::string nodes = dir.write("nodes.csv",
                                      "sn,cpu_milli,memory_mib,gpu,model\n"
                                      "gpu-node,16000,65536,2,T4\n"
                                      "cpu-node,8000,32768,0,\n");
  // At t=0, in file order: three half-GPU pods of 100 s, a 1-GPU pod of 50 s, a CPU-only
  // pod of 10 s; and a pod the trace never scheduled (no duration).
  const std::string trace = dir.write(
      "pods.csv",
      "job_id,submit_time_s,num_gpus,gpu_milli,cpu_milli,memory_mib,duration_s,queue_delay_s,"
      "qos_class,final_status\n"
      "half-a,0,1,500,1000,1024,100,0,LS,Running\n"
      "half-b,0,1,500,1000,1024,100,0,LS,Running\n"
      "half-c,0,1,500,1000,1024,100,0,BE,Running\n"
      "whole-w,0,1,1000,1000,1024,50,0,LS,Running\n"
      "cpu-only,0,0,0,4000,4096,10,0,BE,Succeeded\n"
      "never,0,1,250,1000,1024,,,BE,Pending\n");
  const std::string out = dir.file("out");
  auto run =
      testing::runCommand(std::string(TROUPE_BINARY_DIR) + "/cmd/troupe sim --trace " + trace +
                          " --cluster " + nodes + " --policy fifo --quiet --out " + out);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);

  // half-a and half-b share GPU 0 (500 + 500 = 1000), half-c takes GPU 1 (500 of it). GPU
  // 1 is shared, so whole-w has no whole GPU until half-c leaves at 100: 100 .. 150. Were
  // fractions whole GPUs, half-c would wait for GPU 0 and end at 200. The CPU-only pod
  // runs on its CPUs at once: 0 .. 10.
  std::map<std::string, std::string> shares;
  const auto jobs = startsAndEnds(out + "/jobs.csv", shares);
  CHECK(jobs.size() == 5);
  CHECK(jobs.at("half-a") == std::pair<std::string, std::string>{"0", "100"});
  CHECK(jobs.at("half-b") == std::pair<std::string, std::string>{"0", "100"});
  CHECK(jobs.at("half-c") == std::pair<std::string, std::string>{"0", "100"});
  CHECK(jobs.at("whole-w") == std::pair<std::string, std::string>{"100", "150"});
  CHECK(jobs.at("cpu-only") == std::pair<std::string, std::string>{"0", "10"});
  CHECK(jobs.count("never") == 0);
  CHECK(shares.at("half-a") == "500");
  CHECK(shares.at("whole-w") == "1000");
  CHECK(shares.at("cpu-only") == "0");

  std::ifstream summary_file(out + "/summary.json");
  const auto summary = nlohmann::json::parse(summary_file);
  CHECK(summary["never_ran_jobs"] == 1);
  CHECK(summary["skipped_jobs"] == 1);
  CHECK(summary["fractional"]["jobs"] == 3);
  CHECK(summary["cpu_only"]["jobs"] == 1);
  // Busy: 3 x 0.5 GPU x 100 s + 1 GPU x 50 s = 200 GPU-s, over 2 GPUs x 150 s: 2/3.
  CHECK(summary["gpu_utilization"].get<double>() == Approx(200.0 / 300.0));
  CHECK(summary["gpu_types"]["T4"]["gpus"] == 2);
  CHECK(summary["gpu_types"]["T4"]["busy_gpu_hours"].get<double>() == Approx(200.0 / 3600));
  // GPU 1 is half used from 0 to 100: 100 GPU-s partly used, 0.5 x 100 = 50 stranded.
  CHECK(summary["gpu_sharing"]["partly_used_gpu_hours"].get<double>() == Approx(100.0 / 3600));
  CHECK(summary["gpu_sharing"]["stranded_gpu_hours"].get<double>() == Approx(50.0 / 3600));
  CHECK(summary["gpu_sharing"]["max_partly_used_gpus"] == 1);
}

}  // namespace
}  // namespace troupe::simulator
