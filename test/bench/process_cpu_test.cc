#include "bench/support/process_cpu.h"

#include <unistd.h>
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>

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
  // ...spinning for 300 ms of wall time costs about that much (one thread).
  volatile double sink = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
  while (std::chrono::steady_clock::now() < until) sink = sink + std::sqrt(2.0);
  const auto spun = processCpuSeconds(::getpid());
  REQUIRE(spun.has_value());
  CHECK(*spun - *slept >= 0.15);
  CHECK(*spun - *slept <= 0.5);
}

TEST_CASE("no CPU time for a process that does not exist", "[bench]") {
  // Above the kernel's largest pid (pid_max is at most 2^22).
  CHECK_FALSE(processCpuSeconds(1 << 23).has_value());
}

}  // namespace
}  // namespace troupe::bench
