#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <thread>

#include "common/thread_cpu_time.h"

namespace troupe {
namespace {

TEST_CASE("a thread's CPU time grows by what it spends, not by the time that passes",
          "[common][thread]") {
  // Sleeping costs no CPU...
  const double before = threadCpuMs();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const double slept = threadCpuMs();
  CHECK(slept - before < 100);
  // ...and another thread's spinning is not this thread's.
  std::thread([] {
    volatile double sink = 0;
    const double start = threadCpuMs();
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (threadCpuMs() - start < 100 && std::chrono::steady_clock::now() < give_up)
      sink = sink + std::sqrt(2.0);
    CHECK(threadCpuMs() - start >= 100);
  }).join();
  CHECK(threadCpuMs() - slept < 50);
}

}  // namespace
}  // namespace troupe
