// A quick local measure of cycle times at the target scale. Hidden ([.perf]): run with
//   build/test/queueing/queueing_tests "[perf]"
// The proper benchmark lives with the other benchmarks; this keeps the engine honest
// while it changes.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <random>

#include "common/thread_cpu_time.h"
#include "queueing/engine.h"
#include "test/queueing/builders.h"

namespace troupe::queueing {
namespace {

using namespace testing;
// Resident memory in bytes, from /proc (Linux), for the per-gang figure.
std::int64_t residentBytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  long pages = 0, resident = 0;
  const int got = std::fscanf(f, "%ld %ld", &pages, &resident);
  std::fclose(f);
  return got == 2 ? static_cast<std::int64_t>(resident) * 4096 : 0;
}

// CPU time of this thread since `start_ms`: the machine may be shared, and the targets are
// "on one core".
double msSince(double start_ms) { return threadCpuMs() - start_ms; }

TEST_CASE("cycle times at 10,000 nodes, 1,000 queues, 100,000 pending gangs", "[.perf]") {
  const int scale_nodes = 10000;
  const int scale_gangs = 100000;
  Engine e;
  double t0 = threadCpuMs();
  for (int i = 0; i < scale_nodes; ++i) {
    const int rack = i / 32;
    REQUIRE(e.upsertNode(node("node-" + std::to_string(i))
                             .gpus(8)
                             .rack("rack-" + std::to_string(rack))
                             .block("block-" + std::to_string(rack / 8))
                             .islands({{0, 1, 2, 3}, {4, 5, 6, 7}})
                             .numa({{0, 1, 2, 3}, {4, 5, 6, 7}}))
                .ok());
  }
  std::vector<std::string> leaves;
  for (int a = 0; a < 10; ++a) {
    const std::string top = "org-" + std::to_string(a);
    REQUIRE(e.upsertQueue(queue(top).guaranteedGpus(8000)).ok());
    for (int b = 0; b < 10; ++b) {
      const std::string mid = top + "-dept-" + std::to_string(b);
      REQUIRE(e.upsertQueue(queue(mid).parent(top).guaranteedGpus(800)).ok());
      for (int c = 0; c < 10; ++c) {
        const std::string leaf = mid + "-team-" + std::to_string(c);
        REQUIRE(e.upsertQueue(queue(leaf).parent(mid).guaranteedGpus(80)).ok());
        leaves.push_back(leaf);
      }
    }
  }
  // A few shared shapes, as real gangs are N copies of one pod.
  std::vector<std::shared_ptr<const PodShape>> shapes;
  for (int g : {1, 2, 4, 8}) {
    auto s = std::make_shared<PodShape>();
    s->requests = ResourceVector::of(g, 8000 * g, 64 * kGiB * g);
    shapes.push_back(s);
  }
  const std::int64_t before_gangs = residentBytes();
  std::mt19937_64 rng(42);
  for (int i = 0; i < scale_gangs; ++i) {
    GangSpec g;
    g.name = "gang-" + std::to_string(i);
    g.queue = leaves[rng() % leaves.size()];
    g.priority = static_cast<std::int32_t>(rng() % 3);
    g.submit_time = i / 10;
    const auto pods = static_cast<std::int32_t>(1 + rng() % 64);
    g.pod_sets.push_back(PodSet{shapes[rng() % shapes.size()], pods, pods});
    if (rng() % 4 == 0) g.topology = TopologyConstraint{TopologyMode::Required, "troupe.dev/block"};
    REQUIRE(e.submit(std::move(g)).ok());
  }
  std::printf("build: %.1f ms, %.0f bytes per pending gang\n", msSince(t0),
              static_cast<double>(residentBytes() - before_gangs) / scale_gangs);

  t0 = threadCpuMs();
  Decisions d = e.schedule(20000);
  std::printf("first cycle (empty cluster): %.1f ms, %zu admitted, %zu explained\n", msSince(t0),
              d.admissions.size(), d.explained.size());
  e.schedule(20001);  // settles the queues the first cycle's admissions touched
  t0 = threadCpuMs();
  d = e.schedule(20001);
  std::printf("steady cycle (nothing changed): %.1f ms, %zu admitted, %zu explained\n", msSince(t0),
              d.admissions.size(), d.explained.size());
  {
    GangSpec g;
    g.name = "arrival";
    g.queue = leaves[3];
    g.submit_time = 20001;
    g.pod_sets.push_back(PodSet{shapes[3], 4, 4});
    REQUIRE(e.submit(std::move(g)).ok());
  }
  t0 = threadCpuMs();
  d = e.schedule(20002);
  std::printf("one arrival: %.1f ms, %zu admitted, %zu preempted\n", msSince(t0),
              d.admissions.size(), d.preemptions.size());
  // One completion: remove some running gang.
  std::string victim;
  for (int i = 0; i < scale_gangs && victim.empty(); ++i)
    if (e.isRunning("gang-" + std::to_string(i))) victim = "gang-" + std::to_string(i);
  REQUIRE(e.remove(victim).ok());
  t0 = threadCpuMs();
  d = e.schedule(20003);
  std::printf("one completion: %.1f ms, %zu admitted\n", msSince(t0), d.admissions.size());
  if (std::getenv("TROUPE_PERF_LOOP") != nullptr) {  // for profiling the incremental cycles
    for (int i = 0; i < 20; ++i) {
      GangSpec g;
      g.name = "arrival-" + std::to_string(i);
      g.queue = leaves[static_cast<std::size_t>(i * 37) % leaves.size()];
      g.submit_time = 20003;
      g.pod_sets.push_back(PodSet{shapes[3], 64, 64});
      REQUIRE(e.submit(std::move(g)).ok());
      t0 = threadCpuMs();
      d = e.schedule(20003);
      std::printf("arrival %d: %.1f ms\n", i, msSince(t0));
    }
    int done = 0;
    for (int i = 0; i < scale_gangs && done < 20; ++i) {
      const std::string name = "gang-" + std::to_string(i);
      if (!e.isRunning(name)) continue;
      REQUIRE(e.remove(name).ok());
      t0 = threadCpuMs();
      d = e.schedule(20004 + done);
      std::printf("completion %d: %.1f ms\n", done, msSince(t0));
      ++done;
    }
  }
  std::printf("running %zu, pending %zu\n", e.runningCount(), e.pendingCount());
}

}  // namespace
}  // namespace troupe::queueing
