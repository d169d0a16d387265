// troupe_engine_bench [nodes queues pending [full_repeats [incremental_repeats
// [gpu_types]]]]: one row
// of `troupe bench engine` without building the whole troupe binary, for profiling the
// engine (e.g. under `perf record -g`).
#include <fmt/format.h>

#include <cstdlib>
#include <string>

#include "bench/engine/engine_benchmark.h"

int main(int argc, char** argv) {
  troupe::bench::SyntheticShape shape;
  shape.nodes = 10'000;
  shape.queues = 1'000;
  shape.pending = 100'000;
  troupe::bench::EngineBenchOptions options;
  int* fields[] = {&shape.nodes,
                   &shape.queues,
                   &shape.pending,
                   &options.full_repeats,
                   &options.incremental_repeats,
                   &shape.gpu_types};
  for (int i = 1; i < argc && i <= 6; ++i) {
    const int v = std::atoi(argv[i]);
    if (v < 1) {
      fmt::print(stderr, "troupe_engine_bench: argument {} must be a number >= 1, got '{}'\n", i,
                 argv[i]);
      return 1;
    }
    *fields[i - 1] = v;
  }
  if (shape.gpu_types > 2) {
    fmt::print(stderr, "troupe_engine_bench: gpu_types must be 1 or 2, got {}\n", shape.gpu_types);
    return 1;
  }
  const auto row = troupe::bench::runEngineBench(shape, options);
  fmt::print("{}{}", troupe::bench::markdownHeader(), troupe::bench::markdownRow(row, "base"));
  return 0;
}
