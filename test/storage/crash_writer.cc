// The child of the crash test: opens the store in argv[1] and writes to namespace argv[2]
// from argv[3] threads until it is killed, reporting each acknowledged write on stdout
// (see crash_protocol.h). Prints "ready" once the store is open.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "apiserver/storage/sqlite_object_store.h"
#include "common/log.h"
#include "test/storage/crash_protocol.h"

using namespace troupe;
using namespace troupe::apiserver;

namespace {

std::mutex out_mu;

void report(const std::string& line) {
  std::lock_guard lock(out_mu);
  // One write(2) per line: a line under PIPE_BUF reaches the pipe whole or not at all.
  ssize_t n = ::write(STDOUT_FILENO, line.data(), line.size());
  if (n != static_cast<ssize_t>(line.size())) std::_Exit(3);
}

[[noreturn]] void fail(const std::string& what) {
  report("E " + what + "\n");
  std::_Exit(2);
}

nlohmann::json object(const std::string& ns, const std::string& name, std::mt19937_64& rng) {
  // Sizes from tiny to several pages, so commits span page boundaries.
  std::string padding(rng() % 6000, static_cast<char>('a' + rng() % 26));
  return nlohmann::json{{"metadata", {{"name", name}, {"namespace", ns}}},
                        {"spec", {{"n", rng()}, {"padding", padding}}}};
}

void writeForever(SqliteObjectStore& store, const std::string& ns, int thread, unsigned seed) {
  std::mt19937_64 rng(seed + static_cast<unsigned>(thread) * 7919u);
  std::map<std::string, Revision> live;  // this thread's keys and their revisions
  while (true) {
    std::string name = fmt::format("t{}-k{}", thread, rng() % 6);
    ObjectKey key{testing::kCrashResource, ns, name};
    testing::Ack ack{'C', ns, name, 0, 0};
    auto it = live.find(name);
    if (it == live.end()) {
      auto created = store.create(key, object(ns, name, rng));
      if (!created) fail(created.error().describe());
      live[name] = ack.revision = created->revision;
      ack.hash = testing::contentHash(created->object);
    } else if (rng() % 4 != 0) {
      auto updated = store.update(key, object(ns, name, rng), it->second);
      if (!updated) fail(updated.error().describe());
      ack.op = 'U';
      it->second = ack.revision = updated->revision;
      ack.hash = testing::contentHash(updated->object);
    } else {
      auto removed = store.remove(key, it->second);
      if (!removed) fail(removed.error().describe());
      ack.op = 'D';
      ack.revision = removed->revision;
      ack.hash = testing::contentHash(removed->object);
      live.erase(it);
    }
    report(ack.line());
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    fmt::print(stderr, "usage: {} DATA_DIR NAMESPACE THREADS SEED\n", argv[0]);
    return 64;
  }
  log::setLevel(log::Level::Warn);
  SqliteObjectStoreOptions options;
  options.data_dir = argv[1];
  options.compaction.keep_revisions = 0;
  options.compaction.keep_for = std::chrono::milliseconds(0);
  auto store = SqliteObjectStore::open(options);
  if (!store) fail(store.error().describe());
  std::string ns = argv[2];
  int threads = std::atoi(argv[3]);
  unsigned seed = static_cast<unsigned>(std::strtoul(argv[4], nullptr, 10));
  report("ready\n");
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] { writeForever(**store, ns, t, seed); });
  }
  for (auto& w : workers) w.join();
  return 0;
}
