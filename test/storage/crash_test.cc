#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <chrono>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "apiserver/storage/sqlite_object_store.h"
#include "test/storage/crash_protocol.h"
#include "test/storage/event_collector.h"
#include "test/storage/store_fixture.h"

namespace troupe::apiserver {
namespace {

using testing::Ack;
using testing::contentHash;
using testing::EventCollector;
using testing::kCrashResource;
using testing::openStore;
using testing::TempDir;
using testing::testOptions;

// The crash writer, run until SIGKILL; returns every complete line it wrote.
struct ChildRun {
  std::vector<std::string> lines;
  bool ready = false;
};

ChildRun runAndKill(const std::filesystem::path& dir, const std::string& ns, int threads,
                    unsigned seed, bool compacting, std::chrono::milliseconds kill_after) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(fds[1], STDOUT_FILENO);
    ::close(fds[0]);
    ::close(fds[1]);
    std::string threads_arg = std::to_string(threads);
    std::string seed_arg = std::to_string(seed);
    ::execl(TROUPE_CRASH_WRITER, TROUPE_CRASH_WRITER, dir.c_str(), ns.c_str(), threads_arg.c_str(),
            seed_arg.c_str(), compacting ? "compact" : "keep", static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  ::close(fds[1]);

  ChildRun run;
  std::string buffer;
  auto consume = [&] {
    std::size_t start = 0;
    for (std::size_t nl; (nl = buffer.find('\n', start)) != std::string::npos; start = nl + 1) {
      std::string line = buffer.substr(start, nl - start);
      if (line == "ready") {
        run.ready = true;
      } else {
        run.lines.push_back(std::move(line));
      }
    }
    buffer.erase(0, start);
  };
  // Read until "ready", then on for kill_after, then SIGKILL: the writes in flight at
  // that moment are the point of the test.
  auto deadline = std::chrono::steady_clock::time_point::max();
  auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  bool killed = false;
  char chunk[65536];
  while (true) {
    auto now = std::chrono::steady_clock::now();
    if (!killed && run.ready && deadline == std::chrono::steady_clock::time_point::max()) {
      deadline = now + kill_after;
    }
    if (!killed && (now >= deadline || now >= give_up)) {
      ::kill(pid, SIGKILL);
      killed = true;
    }
    pollfd p{fds[0], POLLIN, 0};
    int wait_ms = killed ? 1000 : 1;
    if (::poll(&p, 1, wait_ms) > 0) {
      ssize_t n = ::read(fds[0], chunk, sizeof chunk);
      if (n <= 0) break;  // EOF: the child is gone
      buffer.append(chunk, static_cast<std::size_t>(n));
      consume();
    }
  }
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  CHECK(WIFSIGNALED(status));
  if (WIFSIGNALED(status)) CHECK(WTERMSIG(status) == SIGKILL);
  // A partial last line (none expected: each line is one write(2)) is not an ack.
  return run;
}

TEST_CASE("a SIGKILL at any moment loses no acknowledged write and half-applies none",
          "[storage][durability][crash]") {
  unsigned seed = std::random_device{}();
  if (const char* text = std::getenv("TROUPE_TEST_SEED")) seed = std::stoul(text);
  const int rounds = 20 * testing::testScale();
  std::mt19937 rng(seed);
  INFO("seed " << seed << " (TROUPE_TEST_SEED reproduces it)");
  fmt::print("crash test: seed {}, {} rounds\n", seed, rounds);

  TempDir dir;
  // Every revision at or below `floor` was written before this round; the first marker
  // makes it 1, so that a watch after it replays the whole round.
  Revision floor = 0;
  {
    auto store = openStore(testOptions(dir.path()));
    auto marker = store->create(ObjectKey{"markers", "", "start"}, nlohmann::json::object());
    REQUIRE(marker.ok());
    floor = marker->revision;
  }
  std::size_t total_acks = 0;
  int rounds_compacted = 0;  // rounds whose child compacted past the round's start
  for (int round = 0; round < rounds; ++round) {
    const std::string ns = fmt::format("round{}", round);
    const int threads = 1 + static_cast<int>(rng() % 8);
    const auto kill_after = std::chrono::milliseconds(10 + rng() % 200);
    // Every other round the child also compacts as it writes, so kills land in
    // compactions too.
    const bool compacting = round % 2 == 1;
    INFO("round " << round << ": " << threads << " writers, " << (compacting ? "compacting, " : "")
                  << "killed after " << kill_after.count() << " ms");
    ChildRun run = runAndKill(dir.path(), ns, threads, rng(), compacting, kill_after);
    std::vector<Ack> acks;
    for (auto& line : run.lines) {
      INFO("child line: " << line);
      REQUIRE(line.rfind("E ", 0) != 0);
      auto ack = Ack::parse(line);
      REQUIRE(ack);
      acks.push_back(*ack);
    }
    total_acks += acks.size();

    auto store = openStore(testOptions(dir.path()));
    const Revision current = store->currentRevision();
    const Revision compacted = store->compactedRevision();
    REQUIRE(current >= floor);
    REQUIRE(compacted <= current);
    // History is complete after `from`; at `from` itself a list shows the state.
    const Revision from = std::max(floor, compacted);
    if (compacted > floor) ++rounds_compacted;
    if (compacted > 0) {
      CHECK(store->list(ListOptions{.resource = kCrashResource, .at_revision = compacted - 1})
                .error()
                .code == ErrorCode::Gone);
    }

    // Each key's state at `from`: (revision, hash).
    std::map<std::string, std::pair<Revision, std::uint64_t>> at_from;
    auto base = store->list(ListOptions{.resource = kCrashResource, .ns = ns, .at_revision = from});
    REQUIRE(base.ok());
    for (auto& item : base->items) {
      at_from[item.key.name] = {item.revision, contentHash(item.object)};
    }

    // The history after `from`, replayed from the log.
    EventCollector history;
    auto watch = store->watch(history.options(kCrashResource, ns, from));
    REQUIRE(watch.ok());
    REQUIRE(history.waitFor(static_cast<std::size_t>(current - from)));
    std::map<Revision, WatchEvent> by_revision;
    for (auto& e : history.events()) by_revision.emplace(e.revision(), e);
    watch.value().reset();

    // Every revision after `from` is one write of this round: no gap, no stray.
    std::vector<Revision> revisions;
    for (auto& [r, e] : by_revision) revisions.push_back(r);
    std::vector<Revision> want_revisions;
    for (Revision r = from + 1; r <= current; ++r) want_revisions.push_back(r);
    REQUIRE(revisions == want_revisions);

    // Every acknowledged write after `from` is there exactly as acknowledged; one at or
    // before it is what the key held at `from`, unless a later (unacknowledged) write of
    // the same thread replaced it.
    std::set<Revision> acked;
    std::map<std::string, const Ack*> last_ack;  // by key name
    for (auto& ack : acks) {
      acked.insert(ack.revision);
      auto& last = last_ack[ack.name];
      if (!last || last->revision < ack.revision) last = &ack;
      if (ack.revision <= from) continue;
      INFO("ack " << ack.line());
      auto it = by_revision.find(ack.revision);
      REQUIRE(it != by_revision.end());
      const WatchEvent& e = it->second;
      CHECK(e.key() == ObjectKey{kCrashResource, ack.ns, ack.name});
      EventType want_type = ack.op == 'C'   ? EventType::Added
                            : ack.op == 'U' ? EventType::Modified
                                            : EventType::Deleted;
      CHECK(e.type() == want_type);
      CHECK(contentHash(e.object()) == ack.hash);
    }
    // Writes committed but never acknowledged, by writer thread ("t<thread>-k<n>"): at
    // most the one each thread had in flight when the kill came.
    std::map<std::string, int> unacked_by_thread;
    auto threadOf = [](const std::string& name) { return name.substr(0, name.find('-')); };
    for (auto& [r, e] : by_revision) {
      if (!acked.count(r)) ++unacked_by_thread[threadOf(e.key().name)];
    }
    for (auto& [name, ack] : last_ack) {
      if (ack->revision > from) continue;
      INFO("last ack at or before " << from << ": " << ack->line());
      auto state = at_from.find(name);
      bool replaced = false;
      if (ack->op == 'D') {
        replaced = state != at_from.end();
        if (replaced) CHECK(state->second.first > ack->revision);
      } else {
        REQUIRE((state == at_from.end() || state->second.first >= ack->revision));
        replaced = state == at_from.end() || state->second.first > ack->revision;
        if (!replaced) CHECK(state->second.second == ack->hash);
      }
      if (replaced && !acked.count(state == at_from.end() ? 0 : state->second.first)) {
        ++unacked_by_thread[threadOf(name)];
      }
    }
    for (auto& [thread, n] : unacked_by_thread) {
      INFO("writer thread " << thread);
      CHECK(n <= 1);
    }

    // The current state is the state at `from` with the history applied.
    std::map<std::string, std::uint64_t> want_live;
    for (auto& [name, state] : at_from) want_live[name] = state.second;
    for (auto& [r, e] : by_revision) {
      if (e.type() == EventType::Deleted) {
        want_live.erase(e.key().name);
      } else {
        want_live[e.key().name] = contentHash(e.object());
      }
    }
    auto listed = store->list(ListOptions{.resource = kCrashResource, .ns = ns});
    REQUIRE(listed.ok());
    std::map<std::string, std::uint64_t> live;
    for (auto& item : listed->items) live[item.key.name] = contentHash(item.object);
    CHECK(live == want_live);

    // Revisions continue after the crash.
    auto marker = store->create(ObjectKey{"markers", "", ns}, nlohmann::json::object());
    REQUIRE(marker.ok());
    CHECK(marker->revision == current + 1);
    floor = marker->revision;
  }
  fmt::print(
      "crash test: {} rounds ({} with compaction inside the round), {} acknowledged "
      "writes checked\n",
      rounds, rounds_compacted, total_acks);
  CHECK(total_acks > 0);
}

}  // namespace
}  // namespace troupe::apiserver
