#include <catch2/catch.hpp>

#include "test/support/command.h"

#include <sys/wait.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

// `troupe bench server` and `troupe bench scheduler` run as real processes at their
// smallest sizes, so the commands cannot rot. Nothing here judges speed: only that each
// figure was measured (is positive) and lands in its row.
namespace troupe::bench {
namespace {

using Run = testing::CommandResult;

// stdout only: the figures; progress and serve's log go to stderr.
Run troupe(const std::string& args) {
  return testing::runCommand(std::string(TROUPE_EXE) + " " + args, /*with_stderr=*/false);
}

// The cells of the Markdown row that starts with `first_cell`, trimmed; empty if none.
std::vector<std::string> row(const std::string& output, const std::string& first_cell) {
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("| " + first_cell + " |", 0) != 0) continue;
    std::vector<std::string> cells;
    std::istringstream parts(line.substr(1));
    for (std::string cell; std::getline(parts, cell, '|');) {
      auto begin = cell.find_first_not_of(' ');
      auto end = cell.find_last_not_of(' ');
      cells.push_back(begin == std::string::npos ? "" : cell.substr(begin, end - begin + 1));
    }
    return cells;
  }
  return {};
}

// "1.25 / 3.50" -> the two numbers.
std::pair<double, double> pair(const std::string& cell) {
  auto slash = cell.find('/');
  REQUIRE(slash != std::string::npos);
  return {std::stod(cell.substr(0, slash)), std::stod(cell.substr(slash + 1))};
}

TEST_CASE("troupe bench server measures creates, bindings, watch latency and memory",
          "[bench][api-bench]") {
  auto run = troupe(
      "bench server --objects 200 --pods 40 --nodes 4 --threads 4 --watchers 10 "
      "--watch-events 20 --watch-rate 100");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.output, Catch::Contains("- machine: "));
  auto cells = row(run.output, "200");
  REQUIRE(cells.size() == 11);
  CHECK(std::stod(cells[1]) > 0);    // creates/s
  CHECK(pair(cells[2]).second > 0);  // create p99
  CHECK(std::stod(cells[3]) > 0);    // pod creates/s
  CHECK(std::stod(cells[4]) > 0);    // bindings/s
  CHECK(cells[5] == "10");           // watchers
  CHECK(pair(cells[6]).second >= pair(cells[6]).first);
  CHECK(std::stod(cells[7]) > 0);  // watch p99 from send
  CHECK(cells[8] == "100.0%");     // every event reached every watcher
  CHECK(std::stod(cells[9]) > 0);  // RSS MiB
  CHECK(std::stod(cells[10]) >= std::stod(cells[9]));
  CHECK_THAT(run.output, Catch::Contains("- 200 stored objects: creates "));
  CHECK_THAT(run.output, Catch::Contains("not comparable (fewer watchers)"));
}

TEST_CASE("troupe bench scheduler binds every pod and reclaims a GPU", "[bench][api-bench]") {
  auto run = troupe(
      "bench scheduler --nodes 20 --jobs 50 --gangs 2 --gang-size 4 --backlog 40 --timeout 60 "
      "--reclaim-wait 5");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.output, Catch::Contains("- machine: "));
  auto single = row(run.output, "single-pod jobs");
  REQUIRE(single.size() == 12);
  CHECK(single[1] == "50");
  CHECK(single[3] == "50");  // bound
  CHECK(std::stod(single[5]) > 0);
  CHECK(pair(single[6]).second >= pair(single[6]).first);
  CHECK(pair(single[6]).first > 0);
  // The server's CPU a pod: it created, scheduled, bound and ran every one of them.
  CHECK(pair(single[8]).first > 0);
  CHECK(pair(single[8]).second > 0);  // the benchmark's creates and watch
  // The store's writes: at least the TrainingJob, its PodGroup and pod, and the binding.
  CHECK(std::stod(single[9]) >= 4);
  // The operator's own, from the server's request log: the pod, its PodGroup and Service,
  // the binding at least.
  CHECK(std::stod(single[10]) >= 4);
  CHECK(std::stod(single[11]) > 0);
  CHECK_THAT(run.output, Catch::Contains("- single-pod jobs: "));
  CHECK_THAT(run.output, Catch::Contains("pods bound/s would take "));
  auto gangs = row(run.output, "gangs of 4");
  REQUIRE(gangs.size() == 12);
  CHECK(gangs[2] == "8");
  CHECK(gangs[3] == "8");
  CHECK(std::stod(gangs[5]) > 0);
  CHECK(std::stod(gangs[9]) >= 2);  // a pod and its binding at least
  auto backlog = row(run.output, "backlog released, timed from the release");
  REQUIRE(backlog.size() == 12);
  CHECK(backlog[1] == "40");
  CHECK(backlog[3] == "40");  // bound, every one after the release
  CHECK(std::stod(backlog[5]) > 0);
  CHECK(pair(backlog[6]).second >= pair(backlog[6]).first);
  CHECK_THAT(run.output, Catch::Contains("the borrowing queue held 160 of 160 GPUs"));
  CHECK_THAT(run.output, Catch::Contains("- reclaim of 1 GPU: "));
  // Freeing one whole node for an 8-GPU job is always allowed: it must be measured.
  CHECK_THAT(run.output, Catch::Contains("- reclaim of 8 GPUs: "));
  CHECK_THAT(run.output, !Catch::Contains("- reclaim of 8 GPUs: not bound"));
}

TEST_CASE("troupe bench scheduler --workload pods binds the benchmark's own PodGroups",
          "[bench][api-bench]") {
  auto run = troupe(
      "bench scheduler --workload pods --no-kubelets --nodes 20 --jobs 30 --gangs 2 --gang-size 4 "
      "--backlog 0 --timeout 60 --reclaim-wait 5");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.output, Catch::Contains("a PodGroup and its pods, made by the benchmark"));
  auto single = row(run.output, "single-pod jobs");
  REQUIRE(single.size() == 12);
  CHECK(single[3] == "30");          // bound
  CHECK(std::stod(single[9]) >= 3);  // the PodGroup, the pod and its binding at least
  auto gangs = row(run.output, "gangs of 4");
  REQUIRE(gangs.size() == 12);
  CHECK(gangs[3] == "8");
  CHECK_THAT(run.output, !Catch::Contains("backlog released"));  // --backlog 0 skips it
  CHECK_THAT(run.output, Catch::Contains("the borrowing queue held 160 of 160 GPUs"));
  CHECK_THAT(run.output, !Catch::Contains("- reclaim of 8 GPUs: not bound"));
}

TEST_CASE("troupe bench scheduler --workload lone-pods counts the operator's writes a pod",
          "[bench][api-bench]") {
  auto run = troupe(
      "bench scheduler --workload lone-pods --no-kubelets --nodes 20 --jobs 30 --gangs 2 "
      "--gang-size 4 --backlog 0 --timeout 60 --reclaim-wait 5");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  auto single = row(run.output, "single-pod jobs");
  REQUIRE(single.size() == 12);
  CHECK(single[3] == "30");  // bound
  // Counted in the server's request log: a lone pod admitted at once costs the operator its
  // binding and one Event, and a few Queue status writes shared by all of them.
  CHECK(std::stod(single[10]) >= 1);
  CHECK(std::stod(single[10]) <= 2.5);
  CHECK_THAT(run.output, Catch::Contains("- single-pod jobs: the operator's writes a pod bound"));
  CHECK_THAT(run.output, Catch::Contains("create pods/binding 1.00;"));
  CHECK_THAT(run.output, Catch::Contains("operator writes a pod, Queues' aside (target <= 2.00"));
}

TEST_CASE("troupe bench scheduler refuses an unknown workload", "[bench][api-bench]") {
  auto run = troupe("bench scheduler --workload jobsets 2>&1");
  CHECK(run.exit_code != 0);
  CHECK_THAT(run.output, Catch::Contains("--workload"));
}

TEST_CASE("troupe bench scheduler refuses a negative backlog", "[bench][api-bench]") {
  auto run = troupe("bench scheduler --backlog=-1 2>&1");
  CHECK(run.exit_code == 2);
  CHECK_THAT(run.output, Catch::Contains("--backlog must be >= 0"));
}

TEST_CASE("troupe bench server refuses a size below one", "[bench][api-bench]") {
  auto run = troupe("bench server --objects 0 2>&1");
  CHECK(run.exit_code == 2);
  CHECK_THAT(run.output, Catch::Contains("--objects"));
}

}  // namespace
}  // namespace troupe::bench
