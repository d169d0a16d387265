// Storage benchmark: durable write throughput of SqliteObjectStore with 1, 8 and 64
// concurrent writers at 10,000 and 100,000 stored objects, and watch delivery latency
// with 1,000 watchers under write load. Prints one line per measurement.
//
//   troupe_store_bench [--seconds=N] [--objects=10000,100000] [--dir=PATH]
#include <fmt/format.h>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "apiserver/storage/sqlite_object_store.h"
#include "common/log.h"

using namespace troupe;
using namespace troupe::apiserver;
using SteadyClock = std::chrono::steady_clock;

namespace {

struct Config {
  double seconds = 3;
  std::vector<int> objects = {10000, 100000};
  std::filesystem::path dir;
};

long rssKiB() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmRSS:") {
      long kib = 0;
      status >> kib;
      return kib;
    }
    std::getline(status, key);
  }
  return 0;
}

// CPU seconds (user + system) this process has used so far.
double cpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

std::int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(SteadyClock::now().time_since_epoch())
      .count();
}

// A pod of about 1.5 KB of JSON, the size of a small real one.
nlohmann::json benchPod(const std::string& ns, const std::string& name, std::int64_t sent_ns) {
  return nlohmann::json{
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata",
       {{"name", name},
        {"namespace", ns},
        {"labels", {{"troupe.dev/job", "llama-" + name}, {"troupe.dev/role", "worker"}}},
        {"annotations", {{"troupe.dev/sent-ns", std::to_string(sent_ns)}}}}},
      {"spec",
       {{"schedulerName", "troupe"},
        {"containers",
         {{{"name", "trainer"},
           {"image", "registry.example.com/ml/llama-trainer:2026.11"},
           {"command", {"torchrun", "--nproc-per-node=8", "train.py", "--config=/cfg/a.yaml"}},
           {"resources",
            {{"limits", {{"nvidia.com/gpu", "8"}, {"cpu", "64"}, {"memory", "512Gi"}}},
             {"requests", {{"nvidia.com/gpu", "8"}, {"cpu", "64"}, {"memory", "512Gi"}}}}},
           {"env",
            {{{"name", "MASTER_ADDR"}, {"value", "llama-a-worker-0.llama-a"}},
             {{"name", "MASTER_PORT"}, {"value", "29500"}},
             {{"name", "WORLD_SIZE"}, {"value", "64"}}}}}}},
        {"tolerations",
         {{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}}}}},
      {"status", {{"phase", "Pending"}, {"qosClass", "Guaranteed"}}}};
}

std::string nsOf(int i) { return fmt::format("team-{:02}", i % 50); }

void preload(SqliteObjectStore& store, int from, int to) {
  std::atomic<int> next{from};
  std::vector<std::thread> threads;
  for (int t = 0; t < 64; ++t) {
    threads.emplace_back([&] {
      for (int i = next++; i < to; i = next++) {
        auto name = fmt::format("pod-{:06}", i);
        auto created = store.create(ObjectKey{"pods", nsOf(i), name}, benchPod(nsOf(i), name, 0));
        if (!created) {
          fmt::print(stderr, "preload: {}\n", created.error().describe());
          std::exit(1);
        }
      }
    });
  }
  for (auto& t : threads) t.join();
}

// Updates random existing pods from `writers` threads for `seconds`; returns writes/s.
// `on_ack` (optional) sees (revision, ack time) for each write. `pace` (writes/s, 0: as
// fast as they go) spaces each thread's writes evenly to add up to that rate.
double writeLoad(SqliteObjectStore& store, int objects, int writers, double seconds,
                 std::function<void(Revision, std::int64_t)> on_ack = nullptr, int writer_nice = 0,
                 double pace = 0) {
  std::atomic<bool> stop{false};
  std::atomic<long> writes{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < writers; ++t) {
    threads.emplace_back([&, t] {
      // Lowering one's own thread priority needs no privilege.
      if (writer_nice != 0) setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), writer_nice);
      std::mt19937 rng(static_cast<unsigned>(t) + 1);
      const auto interval = std::chrono::duration_cast<SteadyClock::duration>(
          std::chrono::duration<double>(pace > 0 ? writers / pace : 0));
      // Threads start spread over one interval, not all at once.
      auto next = SteadyClock::now() + interval * t / writers;
      while (!stop) {
        if (pace > 0) {
          std::this_thread::sleep_until(next);
          next += interval;
        }
        int i = static_cast<int>(rng() % static_cast<unsigned>(objects));
        auto name = fmt::format("pod-{:06}", i);
        auto updated = store.update(ObjectKey{"pods", nsOf(i), name},
                                    benchPod(nsOf(i), name, nowNs()), std::nullopt);
        if (!updated) {
          fmt::print(stderr, "write: {}\n", updated.error().describe());
          std::exit(1);
        }
        if (on_ack) on_ack(updated->revision, nowNs());
        ++writes;
      }
    });
  }
  auto start = SteadyClock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop = true;
  for (auto& t : threads) t.join();
  double elapsed = std::chrono::duration<double>(SteadyClock::now() - start).count();
  return static_cast<double>(writes.load()) / elapsed;
}

double percentile(std::vector<double>& values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  auto index = static_cast<std::size_t>(p * static_cast<double>(values.size() - 1));
  return values[index];
}

std::uintmax_t databaseBytes(const std::filesystem::path& dir) {
  std::uintmax_t total = 0;
  for (const char* suffix : {"", "-wal", "-shm"}) {
    std::error_code ec;
    auto size = std::filesystem::file_size(
        dir / (std::string(SqliteObjectStore::kDatabaseFile) + suffix), ec);
    if (!ec) total += size;
  }
  return total;
}

// `writer_nice`: the priority of the 64 writer threads. 0 is the same as the store's
// threads; 10 is what a server gets when its request handlers run below its event
// delivery, so 64 busy callers cannot take the store's threads' CPU share.
// `pace`: the writers' total rate (writes/s); 0: as fast as they go, which measures the
// fan-out saturated, at whatever rate the store commits on this machine.
void watchLatency(SqliteObjectStore& store, int objects, double seconds, int writer_nice,
                  double pace = 0) {
  // 1,000 watchers: 990 on one namespace each (50 namespaces x 4 resources, about 5 per
  // pair; only pods are written) and 10 on pods in every namespace, as informers are.
  const std::vector<std::string> resources = {"pods", "nodes", "leases.coordination.k8s.io",
                                              "trainingjobs.troupe.dev"};
  struct Sink {
    std::mutex mu;
    std::vector<double> from_send_ms;
    std::vector<std::int64_t> delivered;  // (revision, time) pairs, flattened
    std::vector<Revision> revisions;
    bool ordered = true;
    int closes = 0;
  };
  std::vector<std::unique_ptr<Sink>> sinks;
  std::vector<std::unique_ptr<Watch>> watches;
  for (int i = 0; i < 1000; ++i) {
    auto sink = std::make_unique<Sink>();
    Sink* s = sink.get();
    WatchOptions options;
    options.resource = i < 10 ? "pods" : resources[static_cast<std::size_t>(i) % 4];
    options.ns = i < 10 ? "" : nsOf(i / 4);
    options.on_event = [s](const WatchEvent& e) {
      std::int64_t now = nowNs();
      const auto& sent_text = e.object()["metadata"]["annotations"]["troupe.dev/sent-ns"];
      std::int64_t sent = std::stoll(sent_text.get<std::string>());
      std::lock_guard lock(s->mu);
      if (!s->revisions.empty() && e.revision() <= s->revisions.back()) s->ordered = false;
      s->revisions.push_back(e.revision());
      s->from_send_ms.push_back(static_cast<double>(now - sent) / 1e6);
      s->delivered.push_back(e.revision());
      s->delivered.push_back(now);
    };
    options.on_close = [s](const Error&) {
      std::lock_guard lock(s->mu);
      ++s->closes;
    };
    auto w = store.watch(std::move(options));
    if (!w) {
      fmt::print(stderr, "watch: {}\n", w.error().describe());
      std::exit(1);
    }
    watches.push_back(std::move(w).value());
    sinks.push_back(std::move(sink));
  }

  std::mutex ack_mu;
  std::unordered_map<Revision, std::int64_t> acked_at;
  const double cpu_before = cpuSeconds();
  double rate = writeLoad(
      store, objects, 64, seconds,
      [&](Revision r, std::int64_t t) {
        std::lock_guard lock(ack_mu);
        acked_at[r] = t;
      },
      writer_nice, pace);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // let delivery finish
  watches.clear();
  const double cpu_used = cpuSeconds() - cpu_before;

  std::vector<double> from_send, from_ack;
  long events = 0;
  int closes = 0;
  bool ordered = true;
  for (auto& s : sinks) {
    std::lock_guard lock(s->mu);
    events += static_cast<long>(s->revisions.size());
    closes += s->closes;
    ordered = ordered && s->ordered;
    from_send.insert(from_send.end(), s->from_send_ms.begin(), s->from_send_ms.end());
    for (std::size_t i = 0; i + 1 < s->delivered.size(); i += 2) {
      auto it = acked_at.find(s->delivered[i]);
      if (it == acked_at.end()) continue;
      from_ack.push_back(
          std::max<double>(0, static_cast<double>(s->delivered[i + 1] - it->second) / 1e6));
    }
  }
  fmt::print(
      "watch latency, 1000 watchers, 64 writers at nice {}{}, {} objects: {:.0f} writes/s, {} "
      "events delivered, in order: {}, closed watchers: {}\n"
      "  from write call to delivery: p50 {:.2f} ms, p99 {:.2f} ms, max {:.2f} ms\n"
      "  from write acknowledged to delivery: p50 {:.2f} ms, p99 {:.2f} ms, max {:.2f} ms\n"
      "  process CPU {:.1f} s for {:.1f} s of load (writers, store, watchers together)\n",
      writer_nice, pace > 0 ? fmt::format(" paced to {:.0f} writes/s", pace) : std::string(),
      objects, rate, events, ordered ? "yes" : "NO", closes, percentile(from_send, 0.5),
      percentile(from_send, 0.99), percentile(from_send, 1.0), percentile(from_ack, 0.5),
      percentile(from_ack, 0.99), percentile(from_ack, 1.0), cpu_used, seconds + 0.5);
}

}  // namespace

int main(int argc, char** argv) {
  Config config;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--seconds=", 0) == 0) {
      config.seconds = std::stod(arg.substr(10));
    } else if (arg.rfind("--objects=", 0) == 0) {
      config.objects.clear();
      std::string list = arg.substr(10);
      for (std::size_t pos = 0; pos <= list.size();) {
        auto comma = list.find(',', pos);
        if (comma == std::string::npos) comma = list.size();
        config.objects.push_back(std::stoi(list.substr(pos, comma - pos)));
        pos = comma + 1;
      }
    } else if (arg.rfind("--dir=", 0) == 0) {
      config.dir = arg.substr(6);
    } else {
      fmt::print(stderr, "usage: {} [--seconds=N] [--objects=N,M] [--dir=PATH]\n", argv[0]);
      return 64;
    }
  }
  log::setLevel(log::Level::Warn);
  if (config.dir.empty()) {
    config.dir = std::filesystem::temp_directory_path() /
                 fmt::format("troupe-store-bench-{}", std::random_device{}());
  }
  {
    std::ifstream loadavg("/proc/loadavg");
    std::string one, five;
    loadavg >> one >> five;
    fmt::print("machine: {} cores, load average {} (1 min) {} (5 min)\n",
               std::thread::hardware_concurrency(), one, five);
  }
  for (int objects : config.objects) {
    auto dir = config.dir / fmt::format("objects-{}", objects);
    std::filesystem::remove_all(dir);
    SqliteObjectStoreOptions options;
    options.data_dir = dir;
    auto opened = SqliteObjectStore::open(options);
    if (!opened) {
      fmt::print(stderr, "open: {}\n", opened.error().describe());
      return 1;
    }
    auto& store = **opened;
    auto start = SteadyClock::now();
    preload(store, 0, objects);
    double preload_s = std::chrono::duration<double>(SteadyClock::now() - start).count();
    fmt::print(
        "{} objects stored in {:.1f} s ({:.0f} creates/s, 64 writers); RSS {} MiB, "
        "database {} MiB\n",
        objects, preload_s, objects / preload_s, rssKiB() / 1024,
        databaseBytes(dir) / (1024 * 1024));
    for (int writers : {1, 8, 64}) {
      auto before = store.writeStats();
      const double cpu_before = cpuSeconds();
      double rate = writeLoad(store, objects, writers, config.seconds);
      const double cpu_used = cpuSeconds() - cpu_before;
      auto after = store.writeStats();
      const auto writes =
          static_cast<double>(std::max<std::uint64_t>(1, after.writes - before.writes));
      double per_commit = writes / static_cast<double>(std::max<std::uint64_t>(
                                       1, after.transactions - before.transactions));
      // The process's CPU a write (writers and store together, the writers' part being a
      // pod's JSON and a call): what one durable write costs before any API work.
      fmt::print(
          "durable writes/s, {} objects, {} writers: {:.0f} ({:.1f} writes per commit, {:.0f} us "
          "of CPU a write); RSS {} MiB\n",
          objects, writers, rate, per_commit, cpu_used / writes * 1e6, rssKiB() / 1024);
    }
    watchLatency(store, objects, config.seconds, 0);
    watchLatency(store, objects, config.seconds, 10);
    // At the write rate the API server is asked to sustain (5,000/s): the latency a watcher
    // sees at that load, not at whatever saturates this machine.
    watchLatency(store, objects, config.seconds, 0, 5000);
    fmt::print("after the watch run: RSS {} MiB, database {} MiB\n", rssKiB() / 1024,
               databaseBytes(dir) / (1024 * 1024));
    opened->reset();
    std::filesystem::remove_all(dir);
  }
  std::filesystem::remove_all(config.dir);
  return 0;
}
