#include "bench/api/server_benchmark.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <stop_token>
#include <thread>

#include "bench/api/latency.h"
#include "bench/api/parallel_requests.h"
#include "bench/api/serve_child.h"
#include "bench/support/generated_cluster.h"
#include "common/json_member.h"

namespace troupe::bench {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

const kube::ResourceType kConfigMaps{"", "v1", "configmaps", "ConfigMap", true};
constexpr const char* kStoreNamespace = "bench-store";
constexpr const char* kPodNamespace = "bench-pods";
constexpr const char* kWatchNamespace = "bench-watch";
// Watch streams per kube client (each stream has a connection of its own either way).
constexpr int kWatchersPerClient = 64;

Status createNamespace(kube::KubeClient& client, const std::string& name) {
  json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
  auto made = client.create(kube::resources::kNamespaces, "", ns, {});
  if (!made && !made.error().isAlreadyExists()) return made.error();
  return {};
}

json configMap(const std::string& name, json data) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}}},
          {"data", std::move(data)}};
}

Status createConfigMaps(ServeChild& server, const ServerBenchOptions& options, int objects,
                        ServerBenchRow& row) {
  const std::string payload(256, 'x');
  auto run = runParallel(server, options.threads, objects, [&](kube::KubeClient& client, int i) {
    auto made = client.create(
        kConfigMaps, kStoreNamespace,
        configMap(fmt::format("cm-{}", i), {{"index", std::to_string(i)}, {"payload", payload}}),
        {});
    if (!made) return Status(made.error());
    return Status();
  });
  if (!run) return run.error();
  row.creates_per_second = objects / run->seconds;
  row.create_latency = summarize(std::move(run->latency_ms));
  return {};
}

Status createAndBindPods(ServeChild& server, const ServerBenchOptions& options,
                         ServerBenchRow& row) {
  auto created =
      runParallel(server, options.threads, options.pods, [&](kube::KubeClient& client, int i) {
        json pod = {
            {"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", fmt::format("p-{}", i)}}},
            {"spec",
             {{"schedulerName", "troupe"},
              {"containers", json::array({{{"name", "main"},
                                           {"image", "registry.example.com/bench:1"},
                                           {"resources", {{"requests", {{"cpu", "100m"}}}}}}})}}}};
        auto made = client.create(kube::resources::kPods, kPodNamespace, pod, {});
        if (!made) return Status(made.error());
        return Status();
      });
  if (!created) return created.error();
  row.pod_creates_per_second = options.pods / created->seconds;
  auto bound =
      runParallel(server, options.threads, options.pods, [&](kube::KubeClient& client, int i) {
        auto done = kube::bindPod(client, kPodNamespace, fmt::format("p-{}", i),
                                  generatedNodeName(i % options.nodes));
        if (!done) return Status(done.error());
        return Status();
      });
  if (!bound) return bound.error();
  row.bindings_per_second = options.pods / bound->seconds;
  return {};
}

// `watchers` streams on the ConfigMaps of one namespace; one writer creates `events`
// objects at `rate` per second, each carrying its sequence number. Every receipt is
// timed against the write's send and acknowledgement (one steady clock, one process).
Status measureWatchFanOut(ServeChild& server, const ServerBenchOptions& options,
                          ServerBenchRow& row) {
  const int watchers = options.watchers;
  const int events = options.watch_events;
  std::vector<std::unique_ptr<kube::RestKubeClient>> clients;
  for (int w = 0; w < watchers; w += kWatchersPerClient) {
    auto client = server.newClient();
    if (!client) return client.error();
    clients.push_back(std::move(client.value()));
  }
  std::vector<int64_t> sent(static_cast<std::size_t>(events), 0);
  std::vector<int64_t> acked(static_cast<std::size_t>(events), 0);
  // received[w][seq]: written by watcher w's thread only; read after it is joined.
  std::vector<std::vector<int64_t>> received(static_cast<std::size_t>(watchers),
                                             std::vector<int64_t>(events, 0));
  std::vector<std::atomic<int>> counts(static_cast<std::size_t>(watchers));
  std::vector<std::atomic<bool>> open(static_cast<std::size_t>(watchers));
  std::atomic<int> failures{0};
  std::stop_source stop;
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(watchers));
  for (int w = 0; w < watchers; ++w) {
    threads.emplace_back([&, w] {
      kube::WatchOptions watch;
      watch.timeout_seconds = 3600;
      watch.allow_bookmarks = false;
      auto& mine = received[static_cast<std::size_t>(w)];
      auto on_event = [&](const kube::WatchEvent& event) {
        const auto now = nowNs();
        if (event.type != kube::WatchEventType::Added) return;
        const nlohmann::json& data = objectMember(event.object, "data");
        if (!data.contains("seq")) {
          open[static_cast<std::size_t>(w)] = true;  // a readiness probe
          return;
        }
        int seq = std::stoi(data["seq"].get<std::string>());
        if (seq < 0 || seq >= events || mine[static_cast<std::size_t>(seq)] != 0) return;
        mine[static_cast<std::size_t>(seq)] = now;
        counts[static_cast<std::size_t>(w)].fetch_add(1);
      };
      auto done = clients[static_cast<std::size_t>(w / kWatchersPerClient)]->watch(
          kConfigMaps, kWatchNamespace, watch, on_event, stop.get_token());
      if (!done && !stop.stop_requested()) failures.fetch_add(1);
    });
  }
  auto stop_all = [&] {
    stop.request_stop();
    for (auto& t : threads) t.join();
  };

  // Probes until every stream has seen one, so that no stream is still opening once
  // the measured writes start.
  auto& writer = server.client();
  const auto open_deadline = Clock::now() + std::chrono::seconds(120);
  int probes = 0;
  for (;;) {
    int opened = 0;
    for (const auto& o : open) opened += o.load() ? 1 : 0;
    if (opened == watchers) break;
    if (Clock::now() > open_deadline || failures.load() > 0) {
      stop_all();
      return makeError(ErrorCode::Unavailable, "watch",
                       fmt::format("only {} of {} watch streams opened ({} failed)", opened,
                                   watchers, failures.load()));
    }
    auto made = writer.create(kConfigMaps, kWatchNamespace,
                              configMap(fmt::format("probe-{}", probes++), {{"probe", "1"}}), {});
    if (!made) {
      stop_all();
      return made.error();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }

  const auto start = Clock::now();
  const auto interval = std::chrono::duration<double>(1.0 / options.watch_rate);
  for (int seq = 0; seq < events; ++seq) {
    std::this_thread::sleep_until(start +
                                  std::chrono::duration_cast<Clock::duration>(interval * seq));
    json data = {{"seq", std::to_string(seq)}};
    sent[static_cast<std::size_t>(seq)] = nowNs();
    data["sentNs"] = std::to_string(sent[static_cast<std::size_t>(seq)]);
    auto made = writer.create(kConfigMaps, kWatchNamespace,
                              configMap(fmt::format("w-{}", seq), std::move(data)), {});
    acked[static_cast<std::size_t>(seq)] = nowNs();
    if (!made) {
      stop_all();
      return made.error();
    }
  }
  const auto drain_deadline = Clock::now() + std::chrono::seconds(30);
  for (;;) {
    int64_t total = 0;
    for (const auto& c : counts) total += c.load();
    if (total == int64_t{watchers} * events || Clock::now() > drain_deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  stop_all();

  std::vector<double> from_ack;
  std::vector<double> from_send;
  from_ack.reserve(static_cast<std::size_t>(watchers) * static_cast<std::size_t>(events));
  from_send.reserve(from_ack.capacity());
  for (const auto& mine : received) {
    for (int seq = 0; seq < events; ++seq) {
      int64_t at = mine[static_cast<std::size_t>(seq)];
      if (at == 0) continue;
      // An event may arrive before its write's answer: that counts as no delay.
      from_ack.push_back(
          static_cast<double>(std::max<int64_t>(0, at - acked[static_cast<std::size_t>(seq)])) /
          1e6);
      from_send.push_back(static_cast<double>(at - sent[static_cast<std::size_t>(seq)]) / 1e6);
    }
  }
  row.watchers = watchers;
  row.watch_delivered =
      static_cast<double>(from_ack.size()) / (static_cast<double>(watchers) * events);
  row.watch_from_ack = summarize(std::move(from_ack));
  row.watch_from_send = summarize(std::move(from_send));
  return {};
}

Result<ServerBenchRow> measureServer(const ServerBenchOptions& options, int objects) {
  ServerBenchRow row;
  row.objects = objects;
  const std::string cluster_file =
      (std::filesystem::temp_directory_path() / fmt::format("troupe-bench-nodes-{}.yaml", getpid()))
          .string();
  GeneratedClusterShape shape;
  shape.nodes = options.nodes;
  if (auto written = writeClusterFile(cluster_file, shape); !written) return written.error();
  ServeChildOptions serve;
  serve.cluster_file = cluster_file;
  serve.crd_dir = options.crd_dir;
  auto server = ServeChild::start(serve);
  std::filesystem::remove(cluster_file);
  if (!server) return server.error();
  auto& client = (*server)->client();
  for (const char* ns : {kStoreNamespace, kPodNamespace, kWatchNamespace}) {
    if (auto made = createNamespace(client, ns); !made) return made.error();
  }
  if (auto done = createConfigMaps(**server, options, objects, row); !done) return done.error();
  if (auto done = createAndBindPods(**server, options, row); !done) return done.error();
  if (auto done = measureWatchFanOut(**server, options, row); !done) return done.error();
  auto memory = (*server)->memory();
  row.rss_bytes = memory.rss_bytes;
  row.hwm_bytes = memory.hwm_bytes;
  (*server)->stop();
  return row;
}

}  // namespace

Result<std::vector<ServerBenchRow>> runServerBench(
    const ServerBenchOptions& options, const std::function<void(const ServerBenchRow&)>& on_row) {
  std::vector<ServerBenchRow> rows;
  for (int objects : options.objects) {
    auto row = measureServer(options, objects);
    if (!row) return row.error();
    on_row(*row);
    rows.push_back(*row);
  }
  return rows;
}

std::string serverMarkdownHeader() {
  return "| stored objects | creates/s | create p50 / p99 ms | pod creates/s | bindings/s | "
         "watchers | watch p50 / p99 ms (from ack) | watch p99 ms (from send) | delivered | "
         "RSS MiB | peak RSS MiB |\n"
         "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
}

std::string serverMarkdownRow(const ServerBenchRow& row) {
  constexpr double kMiB = 1024.0 * 1024.0;
  return fmt::format(
      "| {} | {:.0f} | {:.2f} / {:.2f} | {:.0f} | {:.0f} | {} | {:.2f} / {:.2f} | {:.2f} | "
      "{:.1f}% | {:.0f} | {:.0f} |\n",
      row.objects, row.creates_per_second, row.create_latency.p50_ms, row.create_latency.p99_ms,
      row.pod_creates_per_second, row.bindings_per_second, row.watchers, row.watch_from_ack.p50_ms,
      row.watch_from_ack.p99_ms, row.watch_from_send.p99_ms, row.watch_delivered * 100,
      static_cast<double>(row.rss_bytes) / kMiB, static_cast<double>(row.hwm_bytes) / kMiB);
}

}  // namespace troupe::bench
