#include <catch2/catch.hpp>

#include <mutex>
#include <thread>
#include <vector>

#include "kube/informer.h"
#include "test/kube/support/client_for.h"
#include "test/kube/support/scripted_server.h"

using namespace troupe;
using namespace troupe::kube;
using namespace troupe::kube::testing;
using nlohmann::json;
using std::chrono::milliseconds;

namespace {

// What the handlers saw, as "add llama-a 198", in call order.
struct HandlerLog {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> lines;

  void add(const std::string& what, const ObjectPtr& o) {
    {
      std::lock_guard lock(mu);
      lines.push_back(what + " " + (*o)["metadata"].value("name", "") + " " +
                      (*o)["metadata"].value("resourceVersion", ""));
    }
    cv.notify_all();
  }
  bool waitFor(std::size_t n) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, milliseconds(5000), [&] { return lines.size() >= n; });
  }
  std::vector<std::string> get() {
    std::lock_guard lock(mu);
    return lines;
  }
  InformerHandlers handlers() {
    return {[this](const ObjectPtr& o) { add("add", o); },
            [this](const ObjectPtr&, const ObjectPtr& o) { add("update", o); },
            [this](const ObjectPtr& o) { add("delete", o); }};
  }
};

InformerOptions fastRetries() {
  InformerOptions options;
  options.retry_base = milliseconds(5);
  options.retry_max = milliseconds(20);
  return options;
}

Reply idleWatch() {
  Reply idle = Reply::watchLines({});
  idle.hold_open = true;
  return idle;
}

}  // namespace

TEST_CASE("an informer lists, watches, and relists after 410 Gone, calling handlers in order",
          "[kube][informer]") {
  ScriptedServer server;
  auto client = clientFor(configFor(server));
  // 1. list at 200: llama-a (198), llama-b (199), llama-c (200).
  server.enqueue(Reply::fixture(200, "tj-list.json"));
  // 2. watch from 200: the server's history no longer reaches back that far.
  server.enqueue(Reply::watchLines(fixtureLines("err-410-watch-too-old.ndjson")));
  // 3. relist: meanwhile llama-a and llama-b were deleted; llama-c is unchanged.
  server.enqueue(Reply::fixture(200, "tj-list-continue.json"));
  // 4. watch from 200: llama-w is created, changed twice, deleted; a bookmark at 214.
  server.enqueue(Reply::watchLines(fixtureLines("tj-watch.ndjson")));
  // 5. watch from 214: quiet.
  server.enqueue(idleWatch());

  Informer informer(*client, resources::kTrainingJobs, "fixtures", fastRetries());
  HandlerLog log;
  informer.addHandlers(log.handlers());
  informer.start();
  REQUIRE(informer.waitForSync(milliseconds(5000)));
  REQUIRE(log.waitFor(9));
  REQUIRE(server.waitForRequests(5, milliseconds(5000)));
  informer.stop();

  CHECK(log.get() ==
        std::vector<std::string>{"add llama-a 198", "add llama-b 199", "add llama-c 200",
                                 // the relist: what vanished is deleted, what is unchanged is quiet
                                 "delete llama-a 198", "delete llama-b 199", "add llama-w 211",
                                 "update llama-w 212", "update llama-w 213", "delete llama-w 214"});
  CHECK(informer.relists() == 1);
  CHECK(informer.cache().keys() == std::vector<std::string>{"fixtures/llama-c"});
  CHECK(informer.lastResourceVersion() == "214");
  const auto r = server.requests();
  CHECK(r[0].param("limit") == "500");
  CHECK_FALSE(r[0].hasParam("watch"));
  CHECK(r[1].param("resourceVersion") == "200");
  CHECK(r[1].param("allowWatchBookmarks") == "true");
  CHECK_FALSE(r[2].hasParam("watch"));
  CHECK(r[3].param("resourceVersion") == "200");
  CHECK(r[4].param("resourceVersion") == "214");
}

TEST_CASE("an informer keeps an index of pods by node up to date", "[kube][informer][cache]") {
  ScriptedServer server;
  auto client = clientFor(configFor(server));
  server.enqueue(Reply::fixture(200, "pod-list-fieldselector.json"));
  // The pod is deleted and a new one lands on gpu-node-2.
  json pod = json::parse(readFixture("pod-list-fieldselector.json"))["items"][0];
  json moved = pod;
  moved["metadata"]["name"] = "llama-a-worker-9";
  moved["metadata"]["resourceVersion"] = "240";
  moved["spec"]["nodeName"] = "gpu-node-2";
  pod["metadata"]["resourceVersion"] = "241";
  server.enqueue(Reply::watchLines({json{{"type", "ADDED"}, {"object", moved}}.dump() + "\n",
                                    json{{"type", "DELETED"}, {"object", pod}}.dump() + "\n"}));
  server.enqueue(idleWatch());

  Informer informer(*client, resources::kPods, "", fastRetries());
  informer.addIndex("nodeName", indexByNodeName());
  // The index as the listed pod's add handler sees it: handlers run on the informer's
  // thread in event order, so the watched events cannot have moved it yet (read from the
  // test's thread, the watch may already have deleted the pod). Added before the log's
  // handlers, so the log's wake-up comes after it is taken.
  std::vector<ObjectPtr> on_node1;
  std::once_flag first_add;
  informer.addHandlers({[&](const ObjectPtr&) {
                          std::call_once(first_add, [&] {
                            on_node1 = informer.cache().byIndex("nodeName", "gpu-node-1");
                          });
                        },
                        nullptr, nullptr});
  HandlerLog log;
  informer.addHandlers(log.handlers());
  CHECK_FALSE(informer.hasSynced());
  informer.start();
  REQUIRE(informer.waitForSync(milliseconds(5000)));
  REQUIRE(log.waitFor(1));
  REQUIRE(on_node1.size() == 1);
  // List items come without kind; the cache fills it in so listed and watched objects agree.
  CHECK(on_node1[0]->value("kind", "") == "Pod");
  REQUIRE(log.waitFor(3));
  informer.stop();

  CHECK(informer.cache().byIndex("nodeName", "gpu-node-1").empty());
  auto on_node2 = informer.cache().byIndex("nodeName", "gpu-node-2");
  REQUIRE(on_node2.size() == 1);
  CHECK((*on_node2[0])["metadata"]["name"] == "llama-a-worker-9");
  CHECK(informer.cache().get("fixtures/llama-a-worker-9") != nullptr);
  CHECK(informer.cache().get("fixtures/llama-a-worker-0") == nullptr);
}

TEST_CASE("an informer retries a failing list until it succeeds", "[kube][informer]") {
  ScriptedServer server;
  auto config = configFor(server);
  config.max_retries = 0;
  auto client = clientFor(config);
  server.enqueue(Reply::fixture(403, "err-403-forbidden.json"));
  server.enqueue(Reply::fixture(200, "tj-list.json"));
  server.enqueue(idleWatch());
  Informer informer(*client, resources::kTrainingJobs, "fixtures", fastRetries());
  informer.start();
  REQUIRE(informer.waitForSync(milliseconds(5000)));
  CHECK(informer.cache().size() == 3);
  CHECK(informer.relists() == 0);
  informer.stop();
}

TEST_CASE("the object cache files objects under their index values and in key order",
          "[kube][cache]") {
  ObjectCache cache;
  cache.addIndex("namespace", indexByNamespace());
  auto object = [](const std::string& ns, const std::string& name) {
    return std::make_shared<const json>(json{{"metadata", {{"namespace", ns}, {"name", name}}}});
  };
  CHECK(cache.upsert(object("b", "x")) == nullptr);
  cache.upsert(object("a", "y"));
  cache.upsert(object("a", "x"));
  CHECK(cache.keys() == std::vector<std::string>{"a/x", "a/y", "b/x"});
  CHECK(cache.byIndex("namespace", "a").size() == 2);
  CHECK(cache.erase("a/x") != nullptr);
  CHECK(cache.erase("a/x") == nullptr);
  CHECK(cache.byIndex("namespace", "a").size() == 1);
  CHECK(cache.byIndex("no-such-index", "a").empty());
  CHECK(objectKey(json{{"metadata", {{"name", "gpu-node-1"}}}}) == "gpu-node-1");
  // compareObjectKey orders objects as their keys do, without building them.
  const json pod{{"metadata", {{"namespace", "ml"}, {"name", "train-1"}}}};
  const json node{{"metadata", {{"name", "gpu-node-1"}}}};
  for (const std::string key : {"ml/train-1", "ml/train-10", "ml/train", "ml", "ml-x/a", "ml/", "m",
                                "", "gpu-node-1", "gpu-node-10", "gpu-node-", "zz"}) {
    INFO(key);
    auto sign = [](int c) { return (c > 0) - (c < 0); };
    CHECK(sign(compareObjectKey(pod, key)) == sign(objectKey(pod).compare(key)));
    CHECK(sign(compareObjectKey(node, key)) == sign(objectKey(node).compare(key)));
  }
}

TEST_CASE("the object cache refiles an updated object only under the values it now has",
          "[kube][cache]") {
  ObjectCache cache;
  cache.addIndex("team", [](const json& o) -> std::vector<std::string> {
    auto teams = o["metadata"].value("labels", json::object()).value("teams", "");
    std::vector<std::string> out;
    for (std::size_t at = 0; at < teams.size();) {
      auto comma = std::min(teams.find(',', at), teams.size());
      out.push_back(teams.substr(at, comma - at));
      at = comma + 1;
    }
    return out;
  });
  cache.addIndex("namespace", indexByNamespace());
  auto pod = [](const std::string& name, const std::string& teams, int version) {
    return std::make_shared<const json>(
        json{{"metadata", {{"namespace", "ml"}, {"name", name}, {"labels", {{"teams", teams}}}}},
             {"version", version}});
  };
  auto names = [&](const std::string& index, const std::string& value) {
    std::vector<std::string> out;
    for (const auto& o : cache.byIndex(index, value)) out.push_back((*o)["metadata"]["name"]);
    return out;
  };
  CHECK(cache.upsert(pod("p1", "a,b", 1)) == nullptr);
  cache.upsert(pod("p2", "a", 1));
  // The same values: still filed once each, and lookups give the new version.
  auto previous = cache.upsert(pod("p1", "a,b", 2));
  REQUIRE(previous != nullptr);
  CHECK((*previous)["version"] == 1);
  CHECK(names("team", "a") == std::vector<std::string>{"p1", "p2"});
  CHECK(cache.byIndex("team", "b").size() == 1);
  CHECK((*cache.byIndex("team", "b").front())["version"] == 2);
  // One value dropped, one added, one kept.
  cache.upsert(pod("p1", "b,c", 3));
  CHECK(names("team", "a") == std::vector<std::string>{"p2"});
  CHECK(names("team", "b") == std::vector<std::string>{"p1"});
  CHECK(names("team", "c") == std::vector<std::string>{"p1"});
  CHECK(names("namespace", "ml") == std::vector<std::string>{"p1", "p2"});
  // No values: out of the index, still in the cache.
  cache.upsert(pod("p1", "", 4));
  CHECK(cache.byIndex("team", "b").empty());
  CHECK(cache.byIndex("team", "c").empty());
  CHECK(cache.get("ml/p1") != nullptr);
  cache.erase("ml/p2");
  CHECK(cache.byIndex("team", "a").empty());
  CHECK(names("namespace", "ml") == std::vector<std::string>{"p1"});
}

TEST_CASE(
    "an informer whose paged list meets an expired continue token lists again from the "
    "start",
    "[kube][informer]") {
  ScriptedServer server;
  auto client = clientFor(configFor(server));
  // Page 1 of a limit=1 list, then the continue token has been compacted away (410).
  server.enqueue(Reply::fixture(200, "tj-list-limit1.json"));
  server.enqueue(Reply::fixture(410, "err-410-list-continue-expired.json"));
  // The informer starts over (its own backoff); the server answers in one page this time.
  server.enqueue(Reply::fixture(200, "tj-list.json"));
  server.enqueue(idleWatch());
  auto options = fastRetries();
  options.page_size = 1;
  Informer informer(*client, resources::kTrainingJobs, "fixtures", options);
  HandlerLog log;
  informer.addHandlers(log.handlers());
  informer.start();
  REQUIRE(informer.waitForSync(milliseconds(5000)));
  REQUIRE(server.waitForRequests(4, milliseconds(5000)));
  informer.stop();

  // Nothing from the broken attempt reached the handlers: one consistent list.
  CHECK(log.get() ==
        std::vector<std::string>{"add llama-a 198", "add llama-b 199", "add llama-c 200"});
  const auto r = server.requests();
  CHECK(r[0].param("limit") == "1");
  CHECK_FALSE(r[0].hasParam("continue"));
  CHECK(r[1].hasParam("continue"));
  CHECK_FALSE(r[2].hasParam("continue"));
  CHECK(r[3].param("watch") == "true");
  CHECK(r[3].param("resourceVersion") == "200");
}
