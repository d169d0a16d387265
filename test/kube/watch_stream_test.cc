#include <catch2/catch.hpp>

#include <thread>

#include "kube/watch_stream.h"
#include "test/kube/support/client_for.h"
#include "test/kube/support/scripted_server.h"

using namespace troupe;
using namespace troupe::kube;
using namespace troupe::kube::testing;
using nlohmann::json;
using std::chrono::milliseconds;

namespace {

// "ADDED llama-w 211" for each event, in order.
struct EventLog {
  std::mutex mu;
  std::vector<std::string> lines;
  void add(const WatchEvent& e) {
    std::lock_guard lock(mu);
    lines.push_back(std::string(watchEventTypeName(e.type)) + " " +
                    e.object["metadata"].value("name", std::string("-")) + " " +
                    e.object["metadata"].value("resourceVersion", std::string("?")));
  }
  std::vector<std::string> get() {
    std::lock_guard lock(mu);
    return lines;
  }
};

// tj-watch.ndjson: create llama-w, patch spec, patch status, delete, then a bookmark.
const std::vector<std::string> kRecordedWatch = {"ADDED llama-w 211", "MODIFIED llama-w 212",
                                                 "MODIFIED llama-w 213", "DELETED llama-w 214",
                                                 "BOOKMARK - 214"};

WatchStream::Options fromVersion(const std::string& rv) {
  WatchStream::Options options;
  options.watch.resource_version = rv;
  options.watch.timeout_seconds = 12;
  options.retry_base = milliseconds(5);
  options.retry_max = milliseconds(20);
  return options;
}

// The bytes of `lines` cut into pieces of `size` bytes, ignoring line boundaries.
std::vector<std::string> rechunk(const std::vector<std::string>& lines, std::size_t size) {
  std::string all;
  for (const auto& l : lines) all += l;
  std::vector<std::string> out;
  for (std::size_t i = 0; i < all.size(); i += size) out.push_back(all.substr(i, size));
  return out;
}

}  // namespace

TEST_CASE("one watch request decodes the recorded ndjson stream, however it is chunked",
          "[kube][watch]") {
  for (std::size_t chunk : {std::size_t{0}, std::size_t{7}, std::size_t{1000}}) {
    DYNAMIC_SECTION("chunks of " << (chunk == 0 ? std::string("one event")
                                                : std::to_string(chunk) + " bytes")) {
      ScriptedServer server;
      auto client = clientFor(configFor(server));
      const auto lines = fixtureLines("tj-watch.ndjson");
      server.enqueue(Reply::watchLines(chunk == 0 ? lines : rechunk(lines, chunk)));
      EventLog log;
      WatchOptions options;
      options.resource_version = "209";
      options.timeout_seconds = 12;
      auto ended = client->watch(
          resources::kTrainingJobs, "fixtures", options, [&](const WatchEvent& e) { log.add(e); },
          std::stop_token{});
      REQUIRE(ended.ok());  // the server ended the stream at timeoutSeconds
      CHECK(log.get() == kRecordedWatch);
      const auto req = server.requests().at(0);
      CHECK(req.path == "/apis/troupe.dev/v1alpha1/namespaces/fixtures/trainingjobs");
      CHECK(req.param("watch") == "true");
      CHECK(req.param("resourceVersion") == "209");
      CHECK(req.param("allowWatchBookmarks") == "true");
      CHECK(req.param("timeoutSeconds") == "12");
    }
  }
}

TEST_CASE("watch streams of Tables and of synthetic ADDED events decode too", "[kube][watch]") {
  ScriptedServer server;
  auto client = clientFor(configFor(server));
  server.enqueue(Reply::watchLines(fixtureLines("tj-watch-rv0.ndjson")));
  server.enqueue(Reply::watchLines(fixtureLines("tj-watch-table.ndjson")));
  EventLog log;
  WatchOptions from_zero;
  from_zero.resource_version = "0";
  REQUIRE(client
              ->watch(
                  resources::kTrainingJobs, "fixtures", from_zero,
                  [&](const WatchEvent& e) { log.add(e); }, std::stop_token{})
              .ok());
  CHECK(log.get() == std::vector<std::string>{"ADDED llama-c 200", "ADDED llama-ssa 209",
                                              "ADDED llama-a 206", "ADDED llama-b 199"});
  std::vector<std::string> kinds;
  REQUIRE(client
              ->watch(
                  resources::kTrainingJobs, "fixtures", WatchOptions{},
                  [&](const WatchEvent& e) {
                    kinds.push_back(e.object["kind"].get<std::string>() +
                                    " rows=" + std::to_string(e.object["rows"].size()));
                  },
                  std::stop_token{})
              .ok());
  CHECK(kinds == std::vector<std::string>{"Table rows=1", "Table rows=1"});
}

TEST_CASE(
    "a watch stream resumes from the bookmark after the server's timeout, without gaps "
    "or replays",
    "[kube][watch]") {
  ScriptedServer server;
  auto client = clientFor(configFor(server));
  // Request 1 (from 209): the recorded stream, ended by the server at timeoutSeconds.
  server.enqueue(Reply::watchLines(fixtureLines("tj-watch.ndjson")));
  // Request 2 must start at 214 (the bookmark); the server sends what came after it.
  server.enqueue(Reply::watchLines(
      {R"({"type":"ADDED","object":{"kind":"TrainingJob","metadata":{"name":"llama-x","namespace":"fixtures","resourceVersion":"215"}}})"
       "\n"}));
  // Request 3 (from 215): held open until the test stops the stream.
  Reply idle = Reply::watchLines({});
  idle.hold_open = true;
  server.enqueue(idle);

  WatchStream stream(*client, resources::kTrainingJobs, "fixtures", fromVersion("209"));
  EventLog log;
  std::stop_source stop;
  bool ended_ok = false;  // checked on this thread: Catch is not thread-safe
  std::thread runner([&] {
    ended_ok = stream.run([&](const WatchEvent& e) { log.add(e); }, stop.get_token()).ok();
  });
  REQUIRE(server.waitForRequests(3, milliseconds(5000)));
  stop.request_stop();
  runner.join();
  CHECK(ended_ok);

  auto want = kRecordedWatch;
  want.push_back("ADDED llama-x 215");
  CHECK(log.get() == want);
  const auto r = server.requests();
  CHECK(r[0].param("resourceVersion") == "209");
  CHECK(r[1].param("resourceVersion") == "214");
  CHECK(r[2].param("resourceVersion") == "215");
  CHECK(stream.reconnects() == 2);
  CHECK(stream.resourceVersion() == "215");
}

TEST_CASE("a watch connection dropped mid-stream resumes from the last event it delivered",
          "[kube][watch]") {
  ScriptedServer server;
  auto client = clientFor(configFor(server));
  const auto lines = fixtureLines("tj-watch.ndjson");
  // The first two events arrive, then the connection breaks (no terminating chunk).
  Reply broken = Reply::watchLines({lines[0], lines[1]});
  broken.drop = Reply::Drop::MidBody;
  server.enqueue(broken);
  // The server cannot answer the reconnect at once.
  server.enqueue(Reply::json(
      503,
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"restarting","reason":"ServiceUnavailable","code":503})"));
  // From 212 the server sends the rest.
  server.enqueue(Reply::watchLines({lines[2], lines[3], lines[4]}));
  Reply idle = Reply::watchLines({});
  idle.hold_open = true;
  server.enqueue(idle);

  WatchStream stream(*client, resources::kTrainingJobs, "fixtures", fromVersion("209"));
  EventLog log;
  std::stop_source stop;
  std::thread runner(
      [&] { (void)stream.run([&](const WatchEvent& e) { log.add(e); }, stop.get_token()); });
  REQUIRE(server.waitForRequests(4, milliseconds(5000)));
  stop.request_stop();
  runner.join();

  CHECK(log.get() == kRecordedWatch);  // every event once, in order
  const auto r = server.requests();
  CHECK(r[1].param("resourceVersion") == "212");
  CHECK(r[2].param("resourceVersion") == "212");
  CHECK(r[3].param("resourceVersion") == "214");
}

TEST_CASE("a 410 ends the watch stream so the caller relists", "[kube][watch]") {
  SECTION("as an ERROR event in a 200 stream (what the apiserver sends)") {
    ScriptedServer server;
    auto client = clientFor(configFor(server));
    server.enqueue(Reply::watchLines(fixtureLines("err-410-watch-too-old.ndjson")));
    WatchStream stream(*client, resources::kTrainingJobs, "fixtures", fromVersion("1"));
    int events = 0;
    auto ended = stream.run([&](const WatchEvent&) { ++events; }, std::stop_token{});
    REQUIRE_FALSE(ended.ok());
    CHECK(ended.error().isGone());
    CHECK(ended.error().reason == "Expired");
    CHECK_THAT(ended.error().message, Catch::Contains("too old resource version: 1 (197)"));
    CHECK(events == 0);
    CHECK(server.requests().size() == 1);
  }
  SECTION("as an HTTP 410") {
    ScriptedServer server;
    auto client = clientFor(configFor(server));
    server.enqueue(Reply::fixture(410, "err-410-list-rv-exact-compacted.json"));
    WatchStream stream(*client, resources::kTrainingJobs, "fixtures", fromVersion("209"));
    auto ended = stream.run([](const WatchEvent&) {}, std::stop_token{});
    REQUIRE_FALSE(ended.ok());
    CHECK(ended.error().isGone());
    CHECK(ended.error().http_status == 410);
  }
}

TEST_CASE("a line that is not a watch event is a protocol error", "[kube][watch]") {
  ScriptedServer server;
  auto client = clientFor(configFor(server));
  server.enqueue(Reply::watchLines({"{\"type\":\"ADDED\"}\n"}));
  auto ended = client->watch(
      resources::kTrainingJobs, "fixtures", WatchOptions{}, [](const WatchEvent&) {},
      std::stop_token{});
  REQUIRE_FALSE(ended.ok());
  CHECK(ended.error().reason == "ProtocolError");
}

TEST_CASE("stopping a watch ends a stream that is waiting for events", "[kube][watch]") {
  ScriptedServer server;
  auto client = clientFor(configFor(server));
  Reply idle = Reply::watchLines({});
  idle.hold_open = true;
  server.enqueue(idle);
  std::stop_source stop;
  std::thread stopper([&] {
    server.waitForRequests(1, milliseconds(5000));
    std::this_thread::sleep_for(milliseconds(50));
    stop.request_stop();
  });
  const auto start = std::chrono::steady_clock::now();
  auto ended = client->watch(
      resources::kTrainingJobs, "fixtures", WatchOptions{}, [](const WatchEvent&) {},
      stop.get_token());
  stopper.join();
  CHECK(std::chrono::steady_clock::now() - start < milliseconds(3000));
  REQUIRE_FALSE(ended.ok());
  CHECK(ended.error().reason == "Cancelled");
}

TEST_CASE("figures: watch events decoded per second", "[.bench][kube]") {
  ScriptedServer server;
  auto client = clientFor(configFor(server));
  const auto lines = fixtureLines("tj-watch.ndjson");
  std::vector<std::string> many;
  const int rounds = 5000;
  for (int i = 0; i < rounds; ++i) many.push_back(lines[1]);
  server.enqueue(Reply::watchLines(rechunk(many, 16 * 1024)));
  int events = 0;
  const auto start = std::chrono::steady_clock::now();
  REQUIRE(client
              ->watch(
                  resources::kTrainingJobs, "fixtures", WatchOptions{},
                  [&](const WatchEvent&) { ++events; }, std::stop_token{})
              .ok());
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(events == rounds);
  WARN(events << " events (" << lines[1].size() << " bytes each) in " << secs
              << " s: " << events / secs << " events/s");
}

TEST_CASE("an ERROR event other than 410 reconnects from the same version", "[kube][watch]") {
  ScriptedServer server;
  auto client = clientFor(configFor(server));
  const auto lines = fixtureLines("tj-watch.ndjson");
  server.enqueue(Reply::watchLines(
      {lines[0],
       R"({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"etcd leader changed","reason":"InternalError","code":500}})"
       "\n"}));
  server.enqueue(Reply::watchLines({lines[1]}));
  Reply idle = Reply::watchLines({});
  idle.hold_open = true;
  server.enqueue(idle);
  WatchStream stream(*client, resources::kTrainingJobs, "fixtures", fromVersion("209"));
  EventLog log;
  std::stop_source stop;
  std::thread runner(
      [&] { (void)stream.run([&](const WatchEvent& e) { log.add(e); }, stop.get_token()); });
  REQUIRE(server.waitForRequests(3, milliseconds(5000)));
  stop.request_stop();
  runner.join();
  CHECK(log.get() == std::vector<std::string>{"ADDED llama-w 211", "MODIFIED llama-w 212"});
  const auto r = server.requests();
  CHECK(r[1].param("resourceVersion") == "211");
  CHECK(r[2].param("resourceVersion") == "212");
}
