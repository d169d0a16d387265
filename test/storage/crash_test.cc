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
                    unsigned seed, std::chrono::milliseconds kill_after) {
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
            seed_arg.c_str(), static_cast<char*>(nullptr));
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
  for (int round = 0; round < rounds; ++round) {
    const std::string ns = fmt::format("round{}", round);
    const int threads = 1 + static_cast<int>(rng() % 8);
    const auto kill_after = std::chrono::milliseconds(rng() % 120);
    INFO("round " << round << ": " << threads << " writers, killed after " << kill_after.count()
                  << " ms");
    ChildRun run = runAndKill(dir.path(), ns, threads, rng(), kill_after);
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
    REQUIRE(current >= floor);

    // The whole history of this round, replayed from the log.
    EventCollector history;
    auto watch = store->watch(history.options(kCrashResource, ns, floor));
    REQUIRE(watch.ok());
    REQUIRE(history.waitFor(static_cast<std::size_t>(current - floor)));
    std::map<Revision, WatchEvent> by_revision;
    for (auto& e : history.events()) by_revision.emplace(e.object.revision, e);
    watch.value().reset();

    // Every revision after the floor is one write of this round: no gap, no stray.
    std::vector<Revision> revisions;
    for (auto& [r, e] : by_revision) revisions.push_back(r);
    std::vector<Revision> want_revisions;
    for (Revision r = floor + 1; r <= current; ++r) want_revisions.push_back(r);
    REQUIRE(revisions == want_revisions);

    // Every acknowledged write is there exactly as acknowledged.
    std::set<Revision> acked;
    for (auto& ack : acks) {
      INFO("ack " << ack.line());
      auto it = by_revision.find(ack.revision);
      REQUIRE(it != by_revision.end());
      const WatchEvent& e = it->second;
      CHECK(e.object.key == ObjectKey{kCrashResource, ack.ns, ack.name});
      EventType want_type = ack.op == 'C'   ? EventType::Added
                            : ack.op == 'U' ? EventType::Modified
                                            : EventType::Deleted;
      CHECK(e.type == want_type);
      CHECK(contentHash(e.object.object) == ack.hash);
      acked.insert(ack.revision);
    }
    // Unacknowledged but committed: at most one write in flight per writer thread.
    CHECK(static_cast<int>(by_revision.size() - acked.size()) <= threads);

    // The current state agrees with the history: each key's last event decides it.
    std::map<std::string, const WatchEvent*> last_event;
    for (auto& [r, e] : by_revision) last_event[e.object.key.name] = &e;
    std::map<std::string, std::uint64_t> want_live;
    for (auto& [name, e] : last_event) {
      if (e->type != EventType::Deleted) want_live[name] = contentHash(e->object.object);
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
  fmt::print("crash test: {} rounds, {} acknowledged writes checked\n", rounds, total_acks);
  CHECK(total_acks > 0);
}

}  // namespace
}  // namespace troupe::apiserver
