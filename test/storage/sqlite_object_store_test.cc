#include <signal.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <array>
#include <atomic>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <tuple>
#include <vector>

#include "apiserver/storage/sqlite_object_store.h"
#include "common/sqlite_connection.h"
#include "test/storage/event_collector.h"
#include "test/storage/store_fixture.h"

namespace troupe::apiserver {
namespace {

using testing::EventCollector;
using testing::openStore;
using testing::pod;
using testing::podKey;
using testing::TempDir;
using testing::testOptions;

std::string rvOf(const nlohmann::json& object) {
  return object["metadata"]["resourceVersion"].get<std::string>();
}

TEST_CASE("writes take the next revision and stamp it as the resourceVersion", "[storage][crud]") {
  TempDir dir;
  auto store = openStore(testOptions(dir.path()));
  CHECK(store->currentRevision() == 0);

  auto created = store->create(podKey("ns-a", "p1"), pod("ns-a", "p1", 1));
  REQUIRE(created.ok());
  CHECK(created->revision == 1);
  CHECK(rvOf(created->object) == "1");

  auto updated = store->update(podKey("ns-a", "p1"), pod("ns-a", "p1", 2), Revision{1});
  REQUIRE(updated.ok());
  CHECK(updated->revision == 2);

  auto got = store->get(podKey("ns-a", "p1"));
  REQUIRE(got.ok());
  CHECK(got->revision == 2);
  CHECK(got->object["spec"]["value"] == 2);
  CHECK(rvOf(got->object) == "2");

  auto removed = store->remove(podKey("ns-a", "p1"), std::nullopt);
  REQUIRE(removed.ok());
  // The deleted object's last state, stamped with the deleting revision 3.
  CHECK(removed->revision == 3);
  CHECK(removed->object["spec"]["value"] == 2);
  CHECK(rvOf(removed->object) == "3");
  CHECK(store->currentRevision() == 3);
  CHECK(store->get(podKey("ns-a", "p1")).error().code == ErrorCode::NotFound);
}

TEST_CASE("a resourceVersion sent in by the client is replaced, not stored", "[storage][crud]") {
  TempDir dir;
  auto store = openStore(testOptions(dir.path()));
  auto object = pod("ns", "p");
  object["metadata"]["resourceVersion"] = "999";
  auto created = store->create(podKey("ns", "p"), object);
  REQUIRE(created.ok());
  CHECK(rvOf(created->object) == "1");
  CHECK(rvOf(store->get(podKey("ns", "p"))->object) == "1");
}

TEST_CASE("each write is refused with the error its precondition calls for", "[storage][crud]") {
  struct Case {
    std::string name;
    std::function<Result<StoredObject>(ObjectStore&)> write;
    ErrorCode want_code;
  };
  // Every case starts with pods ns/existing at revision 1.
  std::vector<Case> cases = {
      {"creating an existing key is AlreadyExists",
       [](ObjectStore& s) { return s.create(podKey("ns", "existing"), pod("ns", "existing")); },
       ErrorCode::AlreadyExists},
      {"updating a missing key is NotFound",
       [](ObjectStore& s) {
         return s.update(podKey("ns", "missing"), pod("ns", "missing"), std::nullopt);
       },
       ErrorCode::NotFound},
      {"updating with a stale revision is Conflict",
       [](ObjectStore& s) {
         return s.update(podKey("ns", "existing"), pod("ns", "existing"), Revision{7});
       },
       ErrorCode::Conflict},
      {"removing a missing key is NotFound",
       [](ObjectStore& s) { return s.remove(podKey("ns", "missing"), std::nullopt); },
       ErrorCode::NotFound},
      {"removing with a stale revision is Conflict",
       [](ObjectStore& s) { return s.remove(podKey("ns", "existing"), Revision{2}); },
       ErrorCode::Conflict},
      {"the same name in another namespace is another key",
       [](ObjectStore& s) { return s.update(podKey("other", "existing"), pod("other", "x"), {}); },
       ErrorCode::NotFound},
      {"the same name in another resource is another key",
       [](ObjectStore& s) {
         return s.remove(ObjectKey{"nodes", "", "existing"}, std::nullopt);
       },
       ErrorCode::NotFound},
      {"an object that is not a JSON object is BadRequest",
       [](ObjectStore& s) { return s.create(podKey("ns", "array"), nlohmann::json::array()); },
       ErrorCode::BadRequest},
      {"metadata that is not an object is BadRequest",
       [](ObjectStore& s) {
         return s.create(podKey("ns", "bad"), nlohmann::json{{"metadata", "x"}});
       },
       ErrorCode::BadRequest},
      {"a key without a name is BadRequest",
       [](ObjectStore& s) { return s.create(podKey("ns", ""), pod("ns", "")); },
       ErrorCode::BadRequest},
  };
  for (auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      TempDir dir;
      auto store = openStore(testOptions(dir.path()));
      REQUIRE(store->create(podKey("ns", "existing"), pod("ns", "existing")).ok());
      auto result = tc.write(*store);
      REQUIRE_FALSE(result.ok());
      CHECK(result.error().code == tc.want_code);
      // A refused write takes no revision and changes nothing.
      CHECK(store->currentRevision() == 1);
      CHECK(store->get(podKey("ns", "existing"))->revision == 1);
    }
  }
}

TEST_CASE("list returns keys in (namespace, name) order, filtered by resource and namespace",
          "[storage][list]") {
  TempDir dir;
  auto store = openStore(testOptions(dir.path()));
  for (auto [ns, name] : std::vector<std::pair<std::string, std::string>>{
           {"b", "p2"}, {"a", "p9"}, {"b", "p1"}, {"a", "p10"}}) {
    REQUIRE(store->create(podKey(ns, name), pod(ns, name)).ok());
  }
  REQUIRE(store->create(ObjectKey{"nodes", "", "n1"}, nlohmann::json::object()).ok());

  auto all = store->list(ListOptions{.resource = "pods"});
  REQUIRE(all.ok());
  std::vector<std::string> names;
  for (auto& item : all->items) names.push_back(item.key.ns + "/" + item.key.name);
  // Byte order: "p10" sorts before "p9".
  CHECK(names == std::vector<std::string>{"a/p10", "a/p9", "b/p1", "b/p2"});
  CHECK(all->revision == 5);
  CHECK_FALSE(all->more);

  auto in_b = store->list(ListOptions{.resource = "pods", .ns = "b"});
  REQUIRE(in_b.ok());
  REQUIRE(in_b->items.size() == 2);
  CHECK(in_b->items[0].key.name == "p1");

  auto nodes = store->list(ListOptions{.resource = "nodes"});
  REQUIRE(nodes.ok());
  REQUIRE(nodes->items.size() == 1);
  CHECK(rvOf(nodes->items[0].object) == "5");
}

// Pages through `resource` at the revision of the first page, as a continue token does.
std::vector<StoredObject> listInPages(ObjectStore& store, const std::string& ns, std::size_t limit,
                                      Revision& read_at) {
  std::vector<StoredObject> all;
  ListOptions options{.resource = "pods", .ns = ns, .limit = limit};
  while (true) {
    auto page = store.list(options);
    REQUIRE(page.ok());
    if (options.at_revision == 0) read_at = page->revision;
    CHECK(page->revision == read_at);
    CHECK(page->items.size() <= limit);
    for (auto& item : page->items) all.push_back(item);
    if (!page->more) break;
    options.after = page->items.back().key;
    options.at_revision = page->revision;
  }
  return all;
}

TEST_CASE("paging at a fixed revision sees one consistent snapshot while writes go on",
          "[storage][list]") {
  TempDir dir;
  auto store = openStore(testOptions(dir.path()));
  const int kPods = 60;
  for (int i = 0; i < kPods; ++i) {
    auto name = fmt::format("p{:03}", i);
    REQUIRE(store->create(podKey("ns", name), pod("ns", name, 0)).ok());
  }
  const Revision before_writes = store->currentRevision();

  // A writer updates every even pod, deletes every third and creates new ones, while the
  // pages are read.
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (int round = 1; !stop; ++round) {
      for (int i = 0; i < kPods && !stop; i += 2) {
        auto name = fmt::format("p{:03}", i);
        (void)store->update(podKey("ns", name), pod("ns", name, round), std::nullopt);
      }
      for (int i = 0; i < kPods && !stop; i += 3) {
        (void)store->remove(podKey("ns", fmt::format("p{:03}", i)), std::nullopt);
      }
      (void)store->create(podKey("ns", fmt::format("new{}", round)), pod("ns", "new"));
    }
  });
  // Let some writes land first, so the snapshot is not simply "before".
  while (store->currentRevision() < before_writes + 20) std::this_thread::yield();

  Revision read_at = 0;
  auto paged = listInPages(*store, "ns", 7, read_at);
  // Let the writer move well past the snapshot before the last check.
  while (store->currentRevision() < read_at + 50) std::this_thread::yield();
  stop = true;
  writer.join();

  // The same list in one go at the same revision: identical, item for item.
  auto whole = store->list(ListOptions{.resource = "pods", .ns = "ns", .at_revision = read_at});
  REQUIRE(whole.ok());
  REQUIRE(paged.size() == whole->items.size());
  for (std::size_t i = 0; i < paged.size(); ++i) {
    CHECK(paged[i].key == whole->items[i].key);
    CHECK(paged[i].revision == whole->items[i].revision);
    CHECK(paged[i].object == whole->items[i].object);
    CHECK(paged[i].revision <= read_at);
  }
  // And the current list differs: the writer kept going.
  auto now = store->list(ListOptions{.resource = "pods", .ns = "ns"});
  REQUIRE(now.ok());
  CHECK(now->revision > read_at);
}

TEST_CASE("a list at a past revision shows each object as it was then", "[storage][list]") {
  TempDir dir;
  auto store = openStore(testOptions(dir.path()));
  REQUIRE(store->create(podKey("ns", "a"), pod("ns", "a", 1)).ok());                // rev 1
  REQUIRE(store->create(podKey("ns", "b"), pod("ns", "b", 1)).ok());                // rev 2
  REQUIRE(store->update(podKey("ns", "a"), pod("ns", "a", 2), std::nullopt).ok());  // rev 3
  REQUIRE(store->remove(podKey("ns", "b"), std::nullopt).ok());                     // rev 4
  REQUIRE(store->create(podKey("ns", "c"), pod("ns", "c", 1)).ok());                // rev 5

  struct Case {
    Revision at;
    std::vector<std::pair<std::string, int>> want;  // (name, spec.value)
  };
  std::vector<Case> cases = {
      {1, {{"a", 1}}}, {2, {{"a", 1}, {"b", 1}}}, {3, {{"a", 2}, {"b", 1}}},
      {4, {{"a", 2}}}, {5, {{"a", 2}, {"c", 1}}},
  };
  for (auto& tc : cases) {
    DYNAMIC_SECTION("at revision " << tc.at) {
      auto listed = store->list(ListOptions{.resource = "pods", .at_revision = tc.at});
      REQUIRE(listed.ok());
      CHECK(listed->revision == tc.at);
      std::vector<std::pair<std::string, int>> got;
      for (auto& item : listed->items)
        got.emplace_back(item.key.name, item.object["spec"]["value"]);
      CHECK(got == tc.want);
    }
  }
  auto future = store->list(ListOptions{.resource = "pods", .at_revision = 6});
  REQUIRE_FALSE(future.ok());
  CHECK(future.error().code == ErrorCode::Timeout);
}

TEST_CASE("lists at random past revisions, in random pages, match a model of every revision",
          "[storage][list][property]") {
  // Random creates, updates and deletes (names reused after deletion) over two resources and
  // three namespaces, with compactions between; the store's answer for every list at a past
  // revision that is not compacted, whole or in pages, by namespace or not, must be the
  // model's state at that revision.
  using State = std::map<std::tuple<std::string, std::string, std::string>, int>;
  const std::vector<std::string> resources = {"pods", "services"}, namespaces = {"a", "b", "c"};
  const auto seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  auto pick = [&](const auto& from) { return from[rng() % from.size()]; };

  TempDir dir;
  auto store = openStore(testOptions(dir.path()));
  std::map<Revision, State> history{{0, {}}};
  State state;
  for (int op = 0; op < 400 * testing::testScale(); ++op) {
    const ObjectKey key{pick(resources), pick(namespaces), fmt::format("o{}", rng() % 15)};
    const auto model_key = std::make_tuple(key.resource, key.ns, key.name);
    const int value = op;
    auto object = pod(key.ns, key.name, value);
    if (!state.count(model_key)) {
      REQUIRE(store->create(key, object).ok());
      state[model_key] = value;
    } else if (rng() % 3 == 0) {
      REQUIRE(store->remove(key, std::nullopt).ok());
      state.erase(model_key);
    } else {
      REQUIRE(store->update(key, object, std::nullopt).ok());
      state[model_key] = value;
    }
    // One writer: the current revision is this write's.
    history[store->currentRevision()] = state;
    if (rng() % 100 == 0) {
      // Compact to a random revision between the compacted one and now.
      const Revision from = store->compactedRevision(), to = store->currentRevision();
      REQUIRE(store->compact(from + static_cast<Revision>(rng() % (to - from + 1))).ok());
    }
  }

  const Revision compacted = store->compactedRevision(), current = store->currentRevision();
  for (int check = 0; check < 200; ++check) {
    const Revision at =
        compacted + 1 +
        static_cast<Revision>(rng() % static_cast<std::uint64_t>(current - compacted));
    const std::string resource = pick(resources);
    const std::string ns = rng() % 2 ? "" : pick(namespaces);
    const std::size_t limit = rng() % 3 == 0 ? 0 : 1 + rng() % 8;
    INFO("at " << at << " (compacted " << compacted << ", current " << current << ") " << resource
               << " ns '" << ns << "' limit " << limit);
    std::vector<std::tuple<std::string, std::string, int>> want;
    for (const auto& [k, v] : history.at(at))
      if (std::get<0>(k) == resource && (ns.empty() || std::get<1>(k) == ns))
        want.emplace_back(std::get<1>(k), std::get<2>(k), v);
    std::vector<std::tuple<std::string, std::string, int>> got;
    ListOptions options{.resource = resource, .ns = ns, .limit = limit, .at_revision = at};
    while (true) {
      auto page = store->list(options);
      REQUIRE(page.ok());
      CHECK(page->revision == at);
      if (limit) CHECK(page->items.size() <= limit);
      for (const auto& item : page->items) {
        CHECK(item.revision <= at);
        CHECK(rvOf(item.object) == std::to_string(item.revision));
        got.emplace_back(item.key.ns, item.key.name, item.object["spec"]["value"].get<int>());
      }
      if (!page->more) break;
      REQUIRE_FALSE(page->items.empty());
      options.after = page->items.back().key;
    }
    REQUIRE(got == want);
  }
}

TEST_CASE("a database made with the index by key loses it on open and lists the past alike",
          "[storage][list][schema]") {
  TempDir dir;
  {
    auto store = openStore(testOptions(dir.path()));
    REQUIRE(store->create(podKey("ns", "a"), pod("ns", "a", 1)).ok());                // 1
    REQUIRE(store->create(podKey("ns", "b"), pod("ns", "b", 1)).ok());                // 2
    REQUIRE(store->update(podKey("ns", "a"), pod("ns", "a", 2), std::nullopt).ok());  // 3
  }
  auto indexes = [&] {
    auto db = SqliteConnection::open(dir.file(SqliteObjectStore::kDatabaseFile),
                                     SqliteConnection::Mode::ReadWrite);
    REQUIRE(db.ok());
    auto stmt = db->prepare("SELECT name FROM sqlite_master WHERE type='index' AND tbl_name='log'");
    REQUIRE(stmt.ok());
    std::set<std::string> names;
    while (true) {
      auto row = stmt->step();
      REQUIRE(row.ok());
      if (!*row) break;
      names.insert(std::string(stmt->columnText(0)));
    }
    return names;
  };
  CHECK(indexes() == std::set<std::string>{"log_by_revision"});
  {
    // As the schema was before: the index by key, not the one by revision.
    auto db = SqliteConnection::open(dir.file(SqliteObjectStore::kDatabaseFile),
                                     SqliteConnection::Mode::ReadWrite);
    REQUIRE(db.ok());
    REQUIRE(db->exec("DROP INDEX log_by_revision; "
                     "CREATE INDEX log_by_key ON log (resource, ns, name, revision);")
                .ok());
  }
  CHECK(indexes() == std::set<std::string>{"log_by_key"});
  auto store = openStore(testOptions(dir.path()));
  CHECK(indexes() == std::set<std::string>{"log_by_revision"});
  auto at2 = store->list(ListOptions{.resource = "pods", .at_revision = 2});
  REQUIRE(at2.ok());
  REQUIRE(at2->items.size() == 2);
  CHECK(at2->items[0].object["spec"]["value"] == 1);
  CHECK(at2->items[0].revision == 1);
  CHECK(at2->items[1].key.name == "b");
}

TEST_CASE("revisions keep rising across reopen, even after deletes and compaction",
          "[storage][durability]") {
  TempDir dir;
  Revision last = 0;
  {
    auto store = openStore(testOptions(dir.path()));
    REQUIRE(store->create(podKey("ns", "a"), pod("ns", "a")).ok());
    REQUIRE(store->create(podKey("ns", "b"), pod("ns", "b")).ok());
    REQUIRE(store->remove(podKey("ns", "a"), std::nullopt).ok());
    REQUIRE(store->remove(podKey("ns", "b"), std::nullopt).ok());
    last = store->currentRevision();
    CHECK(last == 4);
    // Compaction removes every row: nothing in the log carries revision 4 any more.
    REQUIRE(store->compact(last).ok());
    CHECK(store->compactedRevision() == 4);
  }
  {
    auto store = openStore(testOptions(dir.path()));
    CHECK(store->currentRevision() == 4);
    CHECK(store->compactedRevision() == 4);
    auto again = store->create(podKey("ns", "a"), pod("ns", "a"));
    REQUIRE(again.ok());
    CHECK(again->revision == 5);
    auto listed = store->list(ListOptions{.resource = "pods"});
    REQUIRE(listed.ok());
    REQUIRE(listed->items.size() == 1);
  }
}

TEST_CASE("compaction keeps what reads at or after it need and makes older reads Gone",
          "[storage][compaction]") {
  TempDir dir;
  auto store = openStore(testOptions(dir.path()));
  REQUIRE(store->create(podKey("ns", "a"), pod("ns", "a", 1)).ok());                // 1
  REQUIRE(store->create(podKey("ns", "b"), pod("ns", "b", 1)).ok());                // 2
  REQUIRE(store->update(podKey("ns", "a"), pod("ns", "a", 2), std::nullopt).ok());  // 3
  REQUIRE(store->remove(podKey("ns", "b"), std::nullopt).ok());                     // 4
  REQUIRE(store->update(podKey("ns", "a"), pod("ns", "a", 3), std::nullopt).ok());  // 5

  REQUIRE(store->compact(4).ok());
  CHECK(store->compactedRevision() == 4);

  // At 4 (the compacted revision itself) the list still works: a at value 2.
  auto at4 = store->list(ListOptions{.resource = "pods", .at_revision = 4});
  REQUIRE(at4.ok());
  REQUIRE(at4->items.size() == 1);
  CHECK(at4->items[0].object["spec"]["value"] == 2);

  auto at3 = store->list(ListOptions{.resource = "pods", .at_revision = 3});
  REQUIRE_FALSE(at3.ok());
  CHECK(at3.error().code == ErrorCode::Gone);
  CHECK(at3.error().message == "The resourceVersion for the provided list is too old.");

  auto old_watch = store->watch(
      WatchOptions{.resource = "pods", .after_revision = 2, .on_event = [](const WatchEvent&) {}});
  REQUIRE_FALSE(old_watch.ok());
  CHECK(old_watch.error().code == ErrorCode::Gone);
  CHECK(old_watch.error().message == "too old resource version: 2 (4)");

  // Compacting backwards is a no-op; beyond the current revision is refused.
  REQUIRE(store->compact(1).ok());
  CHECK(store->compactedRevision() == 4);
  auto beyond = store->compact(99);
  REQUIRE_FALSE(beyond.ok());
  CHECK(beyond.error().code == ErrorCode::Invalid);

  // The compacted revision is durable.
  store.reset();
  auto reopened = openStore(testOptions(dir.path()));
  CHECK(reopened->compactedRevision() == 4);
  CHECK(reopened->list(ListOptions{.resource = "pods", .at_revision = 3}).error().code ==
        ErrorCode::Gone);
  auto current = reopened->list(ListOptions{.resource = "pods"});
  REQUIRE(current.ok());
  REQUIRE(current->items.size() == 1);
  CHECK(current->items[0].object["spec"]["value"] == 3);
}

TEST_CASE("a continue token works until compaction passes its revision, then it is Gone",
          "[storage][compaction][list]") {
  TempDir dir;
  auto store = openStore(testOptions(dir.path()));
  for (int i = 0; i < 6; ++i) {
    auto name = fmt::format("p{}", i);
    REQUIRE(store->create(podKey("ns", name), pod("ns", name, 0)).ok());  // revisions 1..6
  }
  auto first = store->list(ListOptions{.resource = "pods", .limit = 2});
  REQUIRE(first.ok());
  REQUIRE(first->more);
  const Revision token_revision = first->revision;  // 6
  ListOptions next{.resource = "pods",
                   .after = first->items.back().key,
                   .limit = 2,
                   .at_revision = token_revision};
  // Later writes, then a compaction up to the token's revision: the page still reads.
  for (int i = 0; i < 6; ++i) {
    auto name = fmt::format("p{}", i);
    REQUIRE(store->update(podKey("ns", name), pod("ns", name, 1), std::nullopt).ok());
  }
  REQUIRE(store->compact(token_revision).ok());
  auto second = store->list(next);
  REQUIRE(second.ok());
  REQUIRE(second->items.size() == 2);
  CHECK(second->items[0].key.name == "p2");
  CHECK(second->items[0].object["spec"]["value"] == 0);  // as of revision 6
  // One revision further and the token has expired.
  REQUIRE(store->compact(token_revision + 1).ok());
  auto expired = store->list(next);
  REQUIRE_FALSE(expired.ok());
  CHECK(expired.error().code == ErrorCode::Gone);
}

TEST_CASE("automatic compaction keeps the last N revisions", "[storage][compaction]") {
  TempDir dir;
  auto options = testOptions(dir.path());
  options.compaction.keep_revisions = 10;
  options.compaction.interval = std::chrono::milliseconds(10);
  options.compaction.max_revisions_per_step = 4;  // several steps, interleaved with writes
  auto store = openStore(options);
  REQUIRE(store->create(podKey("ns", "a"), pod("ns", "a", 0)).ok());
  for (int i = 1; i <= 40; ++i) {
    REQUIRE(store->update(podKey("ns", "a"), pod("ns", "a", i), std::nullopt).ok());
  }
  // 41 revisions; history is kept for the last 10, so compaction goes up to 31.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (store->compactedRevision() < 31 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  CHECK(store->compactedRevision() == 31);
  CHECK(store->list(ListOptions{.resource = "pods", .at_revision = 30}).error().code ==
        ErrorCode::Gone);
  auto at31 = store->list(ListOptions{.resource = "pods", .at_revision = 31});
  REQUIRE(at31.ok());
  CHECK(at31->items.at(0).object["spec"]["value"] == 30);
}

TEST_CASE("automatic compaction by age drops history older than keep_for",
          "[storage][compaction]") {
  TempDir dir;
  auto options = testOptions(dir.path());
  options.compaction.keep_for = std::chrono::milliseconds(500);
  options.compaction.interval = std::chrono::milliseconds(20);
  auto store = openStore(options);
  REQUIRE(store->create(podKey("ns", "a"), pod("ns", "a", 0)).ok());
  REQUIRE(store->update(podKey("ns", "a"), pod("ns", "a", 1), std::nullopt).ok());
  const Revision old_writes = store->currentRevision();
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  REQUIRE(store->update(podKey("ns", "a"), pod("ns", "a", 2), std::nullopt).ok());
  const auto last_write = std::chrono::steady_clock::now();
  auto deadline = last_write + std::chrono::seconds(10);
  while (store->compactedRevision() < old_writes && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const Revision compacted = store->compactedRevision();
  const bool last_write_is_young =
      std::chrono::steady_clock::now() - last_write < std::chrono::milliseconds(450);
  // Everything written before the pause is older than 500 ms; the last write, while it is
  // younger than that, is kept.
  CHECK(compacted >= old_writes);
  if (last_write_is_young) CHECK(compacted == old_writes);
  CHECK(store->list(ListOptions{.resource = "pods", .at_revision = old_writes - 1}).error().code ==
        ErrorCode::Gone);
}

TEST_CASE("concurrent writers each get their own result from a shared commit",
          "[storage][group-commit]") {
  TempDir dir;
  auto store = openStore(testOptions(dir.path()));
  REQUIRE(store->create(podKey("ns", "counter"), pod("ns", "counter", 0)).ok());
  const int kThreads = 16;
  const int kPerThread = 25 * testing::testScale();
  std::atomic<int> conflicts{0};
  std::vector<std::vector<Revision>> revisions(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        // Own key: always succeeds.
        auto name = fmt::format("t{}-{}", t, i);
        auto created = store->create(podKey("ns", name), pod("ns", name, i));
        REQUIRE(created.ok());
        revisions[t].push_back(created->revision);
        // Shared key with optimistic concurrency: read, then update at that revision.
        auto current = store->get(podKey("ns", "counter"));
        REQUIRE(current.ok());
        int value = current->object["spec"]["value"];
        auto updated = store->update(podKey("ns", "counter"), pod("ns", "counter", value + 1),
                                     current->revision);
        if (!updated.ok()) {
          REQUIRE(updated.error().code == ErrorCode::Conflict);
          ++conflicts;
        }
      }
    });
  }
  for (auto& t : threads) t.join();

  // Every acknowledged revision is unique and rising within each caller.
  std::set<Revision> all;
  for (auto& per_thread : revisions) {
    CHECK(std::is_sorted(per_thread.begin(), per_thread.end()));
    all.insert(per_thread.begin(), per_thread.end());
  }
  CHECK(all.size() == static_cast<std::size_t>(kThreads * kPerThread));
  // The counter counts exactly the successful updates: no lost update.
  const int attempts = kThreads * kPerThread;
  auto counter = store->get(podKey("ns", "counter"));
  REQUIRE(counter.ok());
  CHECK(counter->object["spec"]["value"] == attempts - conflicts.load());
  // revisions: 1 (counter) + creates + successful updates.
  CHECK(store->currentRevision() == 1 + attempts + (attempts - conflicts.load()));
}

TEST_CASE("a read never answers older than the last acknowledged write of its key",
          "[storage][reads]") {
  // Writers update, delete and create a few keys while readers read them; whatever a read
  // answers must be at least as new as the last write of that key acknowledged before the
  // read began, and be the very text that revision wrote. Any cache in front of SQLite
  // must keep this (a cache of recent texts was tried: docs/benchmarks.md).
  TempDir dir;
  auto store = openStore(testOptions(dir.path()));
  constexpr int kKeys = 6;
  const int kWrites = 150 * testing::testScale();
  std::array<std::atomic<Revision>, kKeys> acked{};
  std::mutex values_mu;
  std::map<Revision, int> values;  // what each revision wrote in spec.value
  constexpr int kDeleted = -2;
  auto name = [](int k) { return fmt::format("key-{}", k); };
  for (int k = 0; k < kKeys; ++k) {
    auto made = store->create(podKey("ns", name(k)), pod("ns", name(k), -1));
    REQUIRE(made.ok());
    values[made->revision] = -1;
    acked[k] = made->revision;
  }
  std::atomic<bool> writing{true};
  std::atomic<int> reads{0}, stale{0}, wrong_text{0};
  std::vector<std::thread> writers, readers;
  for (int w = 0; w < 3; ++w) {
    writers.emplace_back([&, w] {
      std::mt19937 random(static_cast<unsigned>(w));
      // Raises the key's floor to an acknowledged write's revision.
      auto acknowledge = [&](int k, const StoredObject& done, bool deleted) {
        {
          std::lock_guard lock(values_mu);
          values[done.revision] = deleted ? kDeleted : done.object["spec"]["value"].get<int>();
        }
        Revision seen = acked[k].load();
        while (seen < done.revision && !acked[k].compare_exchange_weak(seen, done.revision)) {
        }
      };
      for (int i = 0; i < kWrites; ++i) {
        const int k = static_cast<int>(random() % kKeys);
        const int value = w * 100000 + i;
        if (random() % 5 == 0) {
          auto removed = store->remove(podKey("ns", name(k)), std::nullopt);
          if (!removed.ok()) continue;  // NotFound: another writer removed it first
          acknowledge(k, *removed, true);
          auto made = store->create(podKey("ns", name(k)), pod("ns", name(k), value));
          if (made.ok()) acknowledge(k, *made, false);  // else AlreadyExists: made by another
        } else {
          auto updated =
              store->update(podKey("ns", name(k)), pod("ns", name(k), value), std::nullopt);
          if (updated.ok()) acknowledge(k, *updated, false);  // else NotFound, for a moment
        }
      }
    });
  }
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&, r] {
      std::mt19937 random(static_cast<unsigned>(100 + r));
      while (writing) {
        const int k = static_cast<int>(random() % kKeys);
        const Revision floor = acked[k].load();
        auto got = store->get(podKey("ns", name(k)));
        ++reads;
        if (!got.ok()) continue;  // deleted, between a delete and its create
        if (got->revision < floor) ++stale;
        std::lock_guard lock(values_mu);
        auto it = values.find(got->revision);
        // A write acknowledged after the read began may not be in `values` yet.
        // (A delete's revision is never a live object's.)
        if (it != values.end() && it->second != got->object["spec"]["value"].get<int>())
          ++wrong_text;
        if (rvOf(got->object) != std::to_string(got->revision)) ++wrong_text;
      }
    });
  }
  for (auto& t : writers) t.join();
  writing = false;
  for (auto& t : readers) t.join();
  CHECK(reads > 0);
  CHECK(stale == 0);
  CHECK(wrong_text == 0);
  // After the writers stop, every key reads as its last acknowledged write.
  for (int k = 0; k < kKeys; ++k) {
    auto got = store->get(podKey("ns", name(k)));
    if (got.ok()) CHECK(got->revision == acked[k].load());
  }
}

TEST_CASE("reads do not wait for a write transaction in progress", "[storage][reads]") {
  TempDir dir;
  auto store = openStore(testOptions(dir.path()));
  REQUIRE(store->create(podKey("ns", "a"), pod("ns", "a", 1)).ok());

  // Another connection holds the database's write lock with an uncommitted change, as the
  // writer does while a group commit is in flight (for as long as its fsync takes).
  auto other = SqliteConnection::open(dir.file(SqliteObjectStore::kDatabaseFile),
                                      SqliteConnection::Mode::ReadWrite);
  REQUIRE(other.ok());
  REQUIRE(
      other->exec("BEGIN IMMEDIATE; UPDATE meta SET value = value WHERE name = 'revision';").ok());

  auto started = std::chrono::steady_clock::now();
  auto got = store->get(podKey("ns", "a"));
  auto listed = store->list(ListOptions{.resource = "pods"});
  auto elapsed = std::chrono::steady_clock::now() - started;
  REQUIRE(got.ok());
  REQUIRE(listed.ok());
  CHECK(listed->items.size() == 1);
  // No busy wait: the readers have their own snapshot (the busy timeout is 10 s).
  CHECK(elapsed < std::chrono::seconds(2));
  REQUIRE(other->exec("ROLLBACK").ok());
}

TEST_CASE("a data directory is used by one store at a time", "[storage][options]") {
  TempDir dir;
  auto first = openStore(testOptions(dir.path()));
  auto second = SqliteObjectStore::open(testOptions(dir.path()));
  REQUIRE_FALSE(second.ok());
  CHECK(second.error().code == ErrorCode::Unavailable);
  CHECK(second.error().field_path == "data_dir");
  first.reset();
  CHECK(SqliteObjectStore::open(testOptions(dir.path())).ok());
}

TEST_CASE("the store's threads leave SIGTERM to the application", "[storage][signals]") {
  TempDir dir;
  // Opened before the application blocks SIGTERM for its sigwait loop, as troupe serve does.
  auto store = openStore(testOptions(dir.path()));
  EventCollector collector;
  auto watch = store->watch(collector.options("pods", "", 0));
  REQUIRE(watch.ok());
  sigset_t term;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  REQUIRE(pthread_sigmask(SIG_BLOCK, &term, nullptr) == 0);
  // Were any store thread open to SIGTERM, the default action would end this process.
  REQUIRE(::kill(::getpid(), SIGTERM) == 0);
  timespec wait{5, 0};
  CHECK(sigtimedwait(&term, nullptr, &wait) == SIGTERM);
  REQUIRE(pthread_sigmask(SIG_UNBLOCK, &term, nullptr) == 0);
  CHECK(store->create(podKey("ns", "a"), pod("ns", "a")).ok());
}

TEST_CASE("bad store options are refused naming the field", "[storage][options]") {
  TempDir dir;
  auto options = testOptions(dir.path());
  options.max_batch = 0;
  auto store = SqliteObjectStore::open(options);
  REQUIRE_FALSE(store.ok());
  CHECK(store.error().field_path == "max_batch");

  auto no_dir = SqliteObjectStore::open(SqliteObjectStoreOptions{});
  REQUIRE_FALSE(no_dir.ok());
  CHECK(no_dir.error().field_path == "data_dir");
}

}  // namespace
}  // namespace troupe::apiserver
