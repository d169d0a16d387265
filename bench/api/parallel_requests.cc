#include "bench/api/parallel_requests.h"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <thread>

namespace troupe::bench {

Result<ParallelRun> runParallel(
    const ServeChild& server, int threads, int count,
    const std::function<Result<void>(kube::KubeClient&, int)>& request) {
  return runParallel(server.config(), threads, count, request);
}

Result<ParallelRun> runParallel(
    const kube::ClientConfig& config, int threads, int count,
    const std::function<Result<void>(kube::KubeClient&, int)>& request) {
  std::vector<std::unique_ptr<kube::RestKubeClient>> clients;
  for (int t = 0; t < threads; ++t) {
    auto client = kube::RestKubeClient::create(config);
    if (!client) return client.error();
    clients.push_back(std::move(client.value()));
  }
  ParallelRun run;
  run.latency_ms.assign(static_cast<std::size_t>(count), 0.0);
  std::atomic<int> next{0};
  std::atomic<bool> failed{false};
  std::mutex error_mu;
  std::optional<Error> first_error;
  const auto start = std::chrono::steady_clock::now();
  {
    std::vector<std::jthread> workers;
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&, t] {
        for (int i; !failed.load() && (i = next.fetch_add(1)) < count;) {
          auto begin = std::chrono::steady_clock::now();
          auto done = request(*clients[static_cast<std::size_t>(t)], i);
          auto end = std::chrono::steady_clock::now();
          run.latency_ms[static_cast<std::size_t>(i)] =
              std::chrono::duration<double, std::milli>(end - begin).count();
          if (!done) {
            std::lock_guard lock(error_mu);
            if (!first_error) {
              first_error = done.error();
              first_error->message = fmt::format("request {}: {}", i, first_error->message);
            }
            failed = true;
          }
        }
      });
    }
  }
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (first_error) return *first_error;
  return run;
}

}  // namespace troupe::bench
