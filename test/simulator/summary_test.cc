#include "simulator/summary.h"

#include <catch2/catch.hpp>

#include <sstream>
#include <vector>

#include "simulator/report_writer.h"

namespace troupe::simulator {
namespace {

JobOutcome finishedJob(const char* id, int gpus, int64_t submit, int64_t start, int64_t end) {
  JobOutcome job;
  job.id = id;
  job.queue = "q";
  job.gpus = gpus;
  job.gpu_milli = gpus * 1000;
  job.pods = 1;
  job.submit_s = submit;
  job.start_s = start;
  job.end_s = end;
  job.duration_s = end - start;
  return job;
}

TEST_CASE("percentiles are nearest-rank", "[simulator][summary]") {
  std::vector<double> values = {5, 1, 4, 2, 3};
  // p50 of 5 values: rank ceil(2.5) = 3 -> 3; p99: rank 5 -> 5; p0 clamps to rank 1.
  CHECK(percentile(values, 50) == 3);
  CHECK(percentile(values, 99) == 5);
  CHECK(percentile(values, 0) == 1);
  std::vector<double> none;
  CHECK(percentile(none, 50) == 0);
}

TEST_CASE("the summary splits out jobs above 8 GPUs and measures utilization",
          "[simulator][summary]") {
  std::vector<JobOutcome> jobs = {finishedJob("small", 4, 0, 0, 100),
                                  finishedJob("large", 16, 0, 100, 200)};
  std::vector<RunSegment> segments = {{0, 0, 100, {{0, 4000}}},
                                      {1, 100, 200, {{0, 8000}, {1, 8000}}}};
  ShareTracker shares({16});
  shares.finish(200);
  SummaryInputs in;
  in.policy = "fifo";
  in.jobs = &jobs;
  in.segments = &segments;
  in.shares = &shares;
  in.queue_names = {"q"};
  in.queue_guarantees = {16};
  in.cluster_gpus = 16;
  auto summary = summarize(in);
  // JCTs 100 and 200: mean 150; the large job alone: 200, waited 100.
  CHECK(summary["jobs"] == 2);
  CHECK(summary["avg_jct_s"].get<double>() == Approx(150));
  CHECK(summary["large"]["jobs"] == 1);
  CHECK(summary["large"]["avg_jct_s"].get<double>() == Approx(200));
  CHECK(summary["large"]["avg_queue_delay_s"].get<double>() == Approx(100));
  // busy 4*100 + 16*100 = 2000 GPU-s over 16 GPUs * 200 s = 3200: .625.
  CHECK(summary["gpu_utilization"].get<double>() == Approx(0.625));
  CHECK(summary["makespan_s"].get<double>() == Approx(200));
}

TEST_CASE("jobs.csv has one line per job and blanks for a job that never ran",
          "[simulator][summary]") {
  std::vector<JobOutcome> jobs = {finishedJob("a", 1, 5, 10, 20)};
  JobOutcome never;
  never.id = "b";
  never.queue = "q";
  never.gpus = 2;
  jobs.push_back(never);
  std::ostringstream out;
  writeJobsCsv(out, jobs);
  std::string want = std::string(kJobsCsvHeader) +
                     "\n"
                     "a,q,1,1,5,10,20,10,15,5,0,0,0,0,1000\n"
                     "b,q,2,0,0,,,0,,,0,0,0,0,0\n";
  CHECK(out.str() == want);
}

}  // namespace
}  // namespace troupe::simulator
