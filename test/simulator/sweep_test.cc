#include "simulator/sweep.h"

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "simulator/sweep_plot.h"
#include "simulator/sweep_table.h"
#include "test/support/command.h"
#include "test/support/temp_dir.h"

namespace troupe::simulator {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> split(const std::string& line, char by) {
  std::vector<std::string> out;
  std::stringstream in(line);
  for (std::string cell; std::getline(in, cell, by);) out.push_back(cell);
  return out;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// A summary with just what the table and the picture read.
nlohmann::json summaryOf(double load, double jct, double util) {
  nlohmann::json causes = {{"reservation", 1.0}, {"fragmentation", 2.0}, {"quota", 0.0},
                           {"queue_head", 0.0},  {"evicted", 0.0},       {"unexplained", 0.0}};
  return {{"cluster_gpus", 64},
          {"offered_load", load},
          {"jobs", 10},
          {"finished_jobs", 9},
          {"avg_jct_s", jct},
          {"p99_queue_delay_s", 5.0},
          {"gpu_utilization", util},
          {"makespan_s", 1.5e6},
          {"big", {{"jobs", 1}, {"avg_jct_s", 2.0 * jct}, {"p99_queue_delay_s", 7.0}}},
          {"idle_while_waiting", {{"gpu_hours", 3.0}, {"by_cause_gpu_hours", causes}}},
          {"guarantee_deficit_gpu_hours", 4.0},
          {"preemptions", 0},
          {"lost_work_gpu_hours", 0.0}};
}

TEST_CASE("the sweep table runs from light to heavy load, policies in the order asked",
          "[simulator][sweep]") {
  std::vector<SweepRun> runs = {{"1/8", 0.125, "troupe", summaryOf(4.0, 3000, 0.8)},
                                {"1/8", 0.125, "fifo", summaryOf(4.0, 9000, 0.9)},
                                {"1", 1.0, "troupe", summaryOf(0.5, 1000, 0.2)},
                                {"1", 1.0, "fifo", summaryOf(0.5, 1234567, 0.2)}};
  auto markdown = sweepMarkdown(runs, {"fifo", "troupe"});
  REQUIRE(markdown.ok());
  auto lines = split(*markdown, '\n');
  REQUIRE(lines.size() == 2 + 4);
  CHECK(lines[2].rfind("| 1 | 64 | 0.50 | fifo | 10 | 9 | 1,234,567 |", 0) == 0);
  CHECK(lines[3].rfind("| 1 | 64 | 0.50 | troupe |", 0) == 0);
  CHECK(lines[4].rfind("| 1/8 | 64 | 4.00 | fifo | 10 | 9 | 9,000 |", 0) == 0);
  CHECK(lines[5].rfind("| 1/8 | 64 | 4.00 | troupe |", 0) == 0);
  // makespan in millions of seconds.
  CHECK(lines[5].find("| 1.50 |") != std::string::npos);

  auto csv = sweepCsv(runs, {"fifo", "troupe"});
  REQUIRE(csv.ok());
  auto rows = split(*csv, '\n');
  REQUIRE(rows.size() == 5);
  CHECK(split(rows[0], ',').size() == sweepColumns().size());
  CHECK(rows[1].rfind("1,64,0.5,fifo,10,9,1234567,", 0) == 0);
  // The CSV keeps the makespan in seconds, as its header says.
  CHECK(split(rows[1], ',')[9] == "1500000");

  runs[0].summary.erase("big");
  auto broken = sweepMarkdown(runs, {"fifo", "troupe"});
  REQUIRE_FALSE(broken.ok());
  CHECK(broken.error().field_path == "big/jobs");

  const std::string svg = sweepSvg(runs, {"fifo", "troupe"});
  CHECK(svg.rfind("<svg ", 0) == 0);
  // One line per policy and panel; a dot per run and panel (the run without "big" still
  // has the keys the picture reads).
  CHECK(count(svg, "<polyline") == 4);
  CHECK(count(svg, "<circle") == 8);
  CHECK(svg.find(">troupe</text>") != std::string::npos);
}

// A Markdown cell as a number: "1,234.5" -> 1234.5.
double markdownNumber(std::string cell) {
  cell.erase(std::remove(cell.begin(), cell.end(), ','), cell.end());
  return std::stod(cell);
}

// Half a unit of the cell's last digit: how far its rounding may move it.
double roundingOf(const std::string& cell) {
  const size_t point = cell.find('.');
  const auto decimals = point == std::string::npos ? 0 : static_cast<int>(cell.size() - point - 1);
  return 0.5 * std::pow(10.0, -decimals) + 1e-9;
}

TEST_CASE("troupe sim sweep writes the table, the CSV and the picture of every replay",
          "[simulator][sweep]") {
  // A 15-hour slice of Philly from an idle cluster (scale 1: 2,816 GPUs, nothing waits) to
  // an overloaded one (1/32: 88 GPUs), under every policy.
  const std::vector<std::string> policies = {"fifo",  "troupe",   "yarn-cs",
                                             "kueue", "tiresias", "srtf"};
  const size_t np = policies.size();
  const size_t runs = 4 * np;
  testing::TempDir dir;
  const std::string command = std::string(TROUPE_BINARY_DIR) +
                              "/cmd/troupe sim sweep --trace " TROUPE_SOURCE_DIR
                              "/test/simulator/data/philly_slice.csv --cluster " TROUPE_SOURCE_DIR
                              "/examples/sim/philly-cluster.yaml --scales 1,1/4,1/16,1/32 "
                              "--policies fifo,troupe,yarn-cs,kueue,tiresias,srtf --out " +
                              dir.path();
  auto first = testing::runCommand(command);
  INFO(first.output);
  REQUIRE(first.exit_code == 0);
  CHECK(first.output.find(fmt::format("{} replays run, 0 reused", runs)) != std::string::npos);

  // The CSV: a header and one row per (scale, policy), lightest load first, policies in the
  // order asked; the causes adding up to the idle total of each.
  auto rows = split(slurp(dir.file("sweep.csv")), '\n');
  REQUIRE(rows.size() == 1 + runs);
  auto header = split(rows[0], ',');
  REQUIRE(header.size() == sweepColumns().size());
  auto column = [&](const std::string& name) {
    auto at = std::find(header.begin(), header.end(), name);
    REQUIRE(at != header.end());
    return static_cast<size_t>(at - header.begin());
  };
  const std::vector<std::string> want_scales = {"1", "1/4", "1/16", "1/32"};
  // 352 nodes of 8 GPUs: 88 at 1/4, 22 at 1/16, 11 at 1/32.
  const std::vector<int> want_gpus = {2816, 704, 176, 88};
  std::vector<std::vector<std::string>> csv;
  for (size_t r = 1; r < rows.size(); ++r) {
    auto cells = split(rows[r], ',');
    INFO(rows[r]);
    REQUIRE(cells.size() == header.size());
    CHECK(cells[column("scale")] == want_scales[(r - 1) / np]);
    CHECK(cells[column("policy")] == policies[(r - 1) % np]);
    CHECK(std::stoi(cells[column("cluster_gpus")]) == want_gpus[(r - 1) / np]);
    CHECK(std::stoi(cells[column("jobs")]) == 216);
    double causes = 0;
    for (const char* cause :
         {"idle_reservation_gpu_h", "idle_fragmentation_gpu_h", "idle_quota_gpu_h",
          "idle_queue_head_gpu_h", "idle_evicted_gpu_h", "idle_unexplained_gpu_h"})
      causes += std::stod(cells[column(cause)]);
    CHECK(causes == Approx(std::stod(cells[column("idle_waiting_gpu_h")])));
    csv.push_back(std::move(cells));
  }
  auto value = [&](size_t row, const std::string& name) {
    return std::stod(csv[row][column(name)]);
  };
  // The load grows as the cluster shrinks: 32 times the GPUs, 1/32 of the load.
  const size_t heaviest = 3 * np;  // fifo at 1/32
  CHECK(value(heaviest, "offered_load") == Approx(32 * value(0, "offered_load")));
  // On the whole cluster nothing waits under FIFO; on 1/32 of it gangs wait with GPUs
  // idle, FIFO holds them behind its head, and yarn-cs keeps GPUs idle for quota.
  CHECK(value(0, "idle_waiting_gpu_h") == 0);
  CHECK(value(0, "p99_queue_delay_s") == 0);
  CHECK(value(heaviest, "idle_queue_head_gpu_h") > 0);
  CHECK(value(heaviest + 1, "idle_waiting_gpu_h") > 0);
  CHECK(value(heaviest + 2, "idle_quota_gpu_h") > 0);

  // The Markdown table has the same rows and cells, rounded (the makespan in Ms).
  auto markdown = split(slurp(dir.file("sweep.md")), '\n');
  REQUIRE(markdown.size() == 2 + runs);
  for (size_t r = 0; r < csv.size(); ++r) {
    auto cells = split(markdown[2 + r], '|');
    INFO(markdown[2 + r]);
    // "| a | b |" splits into "", " a ", " b ".
    REQUIRE(cells.size() == 1 + header.size());
    for (size_t c = 0; c < header.size(); ++c) {
      const std::string cell = cells[1 + c].substr(1, cells[1 + c].size() - 2);
      INFO(header[c] << ": " << cell << " against " << csv[r][c]);
      if (header[c] == "scale" || header[c] == "policy") {
        CHECK(cell == csv[r][c]);
        continue;
      }
      const double want = std::stod(csv[r][c]) / (header[c] == "makespan_s" ? 1e6 : 1);
      CHECK(std::fabs(markdownNumber(cell) - want) <= roundingOf(cell));
    }
  }

  // The picture: a line per policy and panel, a dot per replay and panel, each dot titled
  // with the replay's figures from the CSV.
  const std::string svg = slurp(dir.file("sweep.svg"));
  CHECK(svg.rfind("<svg ", 0) == 0);
  CHECK(count(svg, "<polyline") == 2 * np);
  CHECK(count(svg, "<circle") == 2 * runs);
  for (size_t r = 0; r < csv.size(); ++r) {
    const std::string at =
        fmt::format("<title>{} at scale {}: offered load {:.2f}, ", csv[r][column("policy")],
                    csv[r][column("scale")], value(r, "offered_load"));
    CHECK(count(svg, fmt::format("{}average JCT {:.0f} s</title>", at, value(r, "avg_jct_s"))) ==
          1);
    CHECK(count(svg, fmt::format("{}GPU utilization {:.3f}</title>", at,
                                 value(r, "gpu_utilization"))) == 1);
  }

  // Each replay has its own directory, with the inputs it ran with in its summary.
  auto summary = nlohmann::json::parse(slurp(dir.file("runs/troupe-1_32/summary.json")));
  CHECK(summary["run"]["scale"] == "1/32");
  CHECK(summary["cluster_gpus"] == 88);

  // Run again with --reuse: every replay is kept.
  auto again = testing::runCommand(command + " --reuse");
  INFO(again.output);
  REQUIRE(again.exit_code == 0);
  CHECK(again.output.find(fmt::format("0 replays run, {} reused", runs)) != std::string::npos);
}

TEST_CASE("a sweep over a scale the cluster file cannot take fails before any replay",
          "[simulator][sweep]") {
  testing::TempDir dir;
  {
    std::ofstream out(dir.file("listed.yaml"));
    out << "nodes: [{name: a, gpus: 8}]\nqueues: [{name: q}]\n";
  }
  auto result =
      testing::runCommand(std::string(TROUPE_BINARY_DIR) +
                          "/cmd/troupe sim sweep --trace " TROUPE_SOURCE_DIR
                          "/test/simulator/data/philly_slice.csv --cluster " +
                          dir.file("listed.yaml") + " --scales 1,1/2 --out " + dir.file("out"));
  CHECK(result.exit_code == 1);
  CHECK(result.output.find("--scales") != std::string::npos);
}

}  // namespace
}  // namespace troupe::simulator
