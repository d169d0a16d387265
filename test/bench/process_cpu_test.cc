#include "bench/support/process_cpu.h"

#include <unistd.h>
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>

#include "common/thread_cpu_time.h"

namespace troupe::bench {
namespace {

TEST_CASE("a process's CPU time grows by the CPU it spends, not by the time that passes",
          "[bench]") {
  const auto before = processCpuSeconds(::getpid());
  REQUIRE(before.has_value());
  // Sleeping costs no CPU...
  usleep(200'000);
  const auto slept = processCpuSeconds(::getpid());
  REQUIRE(slept.has_value());
  CHECK(*slept - *before < 0.1);
  // ...spinning until this thread has used 300 ms of CPU costs about that much. Spinning
  // for a span of wall time instead measures the machine's load as well: on a busy
  // machine the thread gets only part of it.
  const auto threadCpu = [] { return threadCpuMs() / 1e3; };
  volatile double sink = 0;
  const double spin_start = threadCpu();
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (threadCpu() - spin_start < 0.3 && std::chrono::steady_clock::now() < give_up)
    sink = sink + std::sqrt(2.0);
  const double spent = threadCpu() - spin_start;
  REQUIRE(spent >= 0.3);
  const auto spun = processCpuSeconds(::getpid());
  REQUIRE(spun.has_value());
  CHECK(*spun - *slept >= spent - 0.05);
  CHECK(*spun - *slept <= spent + 0.2);
}

TEST_CASE("no CPU time for a process that does not exist", "[bench]") {
  // Above the kernel's largest pid (pid_max is at most 2^22).
  CHECK_FALSE(processCpuSeconds(1 << 23).has_value());
}

}  // namespace
}  // namespace troupe::bench
