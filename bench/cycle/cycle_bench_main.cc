// troupe_cycle_bench [nodes [single_jobs [gangs [cycles [backlog]]]]]: the CPU time of the
// scheduler loop's cycle at the moment `troupe bench scheduler` times a reclaim, and of
// the cycle that drains a backlog, without the API server, the kubelets or the job
// controller sharing the machine. Defaults: the 5,000-node run (`--jobs 20000 --gangs 100
// --backlog 20000`); `5000 50000 500` is the full size.
#include <fmt/format.h>

#include <cstdlib>

#include "bench/cycle/cycle_benchmark.h"

int main(int argc, char** argv) {
  troupe::bench::CycleBenchShape shape;
  int* fields[] = {&shape.nodes, &shape.single_jobs, &shape.gangs, &shape.cycles, &shape.backlog};
  for (int i = 1; i < argc && i <= 5; ++i) {
    const int v = std::atoi(argv[i]);
    if (v < 1) {
      fmt::print(stderr, "troupe_cycle_bench: argument {} must be a number >= 1, got '{}'\n", i,
                 argv[i]);
      return 1;
    }
    *fields[i - 1] = v;
  }
  const auto result = troupe::bench::runCycleBench(shape);
  fmt::print("{}", troupe::bench::describe(result));
  const bool drained = result.drain.admitted == static_cast<std::size_t>(shape.backlog);
  return result.cycles_that_reclaimed == shape.cycles && drained ? 0 : 1;
}
