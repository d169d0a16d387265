// Cascading deletion inside the server: dependents named by ownerReferences go with
// their owner (background), before it (foreground), or stay behind unowned (orphan).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <thread>

#include "test/support/in_process_server.h"

namespace troupe::testing {
namespace {

using json = nlohmann::json;

const std::string kMaps = "/api/v1/namespaces/default/configmaps";

std::string createOwner(const InProcessServer& server, const std::string& name) {
  auto reply = server.send("POST", kMaps, json{{"metadata", {{"name", name}}}}.dump());
  REQUIRE(reply.status == 201);
  return json::parse(reply.body)["metadata"]["uid"];
}

void createDependent(const InProcessServer& server, const std::string& name,
                     const std::string& owner, const std::string& owner_uid) {
  json object = {{"metadata",
                  {{"name", name},
                   {"ownerReferences",
                    {{{"apiVersion", "v1"},
                      {"kind", "ConfigMap"},
                      {"name", owner},
                      {"uid", owner_uid},
                      {"blockOwnerDeletion", true}}}}}}};
  REQUIRE(server.send("POST", kMaps, object.dump()).status == 201);
}

// Polls until GET `name` answers `want_status` (the collector runs on its own thread).
bool eventually(const InProcessServer& server, const std::string& name, int want_status) {
  for (int i = 0; i < 100; ++i) {
    if (server.get(kMaps + "/" + name).status == want_status) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

TEST_CASE("background deletion removes dependents after their owner", "[apiserver][gc]") {
  InProcessServer server;
  auto uid = createOwner(server, "owner");
  createDependent(server, "child-a", "owner", uid);
  createDependent(server, "child-b", "owner", uid);
  REQUIRE(server.send("DELETE", kMaps + "/owner", R"({"propagationPolicy":"Background"})").status ==
          200);
  CHECK(eventually(server, "child-a", 404));
  CHECK(eventually(server, "child-b", 404));
}

TEST_CASE("a dependent with another live owner only loses the reference", "[apiserver][gc]") {
  InProcessServer server;
  auto first = createOwner(server, "first");
  auto second = createOwner(server, "second");
  json object = {
      {"metadata",
       {{"name", "shared"},
        {"ownerReferences",
         {{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", "first"}, {"uid", first}},
          {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", "second"}, {"uid", second}}}}}}};
  REQUIRE(server.send("POST", kMaps, object.dump()).status == 201);
  REQUIRE(server.send("DELETE", kMaps + "/first", "").status == 200);
  bool pruned = false;
  for (int i = 0; i < 100 && !pruned; ++i) {
    auto shared = json::parse(server.get(kMaps + "/shared").body);
    pruned = shared["metadata"]["ownerReferences"].size() == 1;
    if (!pruned) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  CHECK(pruned);
}

TEST_CASE("foreground deletion keeps the owner until its dependents are gone", "[apiserver][gc]") {
  InProcessServer server;
  auto uid = createOwner(server, "owner");
  createDependent(server, "child", "owner", uid);
  auto reply = server.send("DELETE", kMaps + "/owner", R"({"propagationPolicy":"Foreground"})");
  REQUIRE(reply.status == 200);
  auto owner = json::parse(reply.body);
  CHECK(owner["metadata"].contains("deletionTimestamp"));
  CHECK(owner["metadata"]["finalizers"] == json::array({"foregroundDeletion"}));
  CHECK(eventually(server, "child", 404));
  CHECK(eventually(server, "owner", 404));
}

TEST_CASE("orphan deletion leaves dependents without the owner reference", "[apiserver][gc]") {
  InProcessServer server;
  auto uid = createOwner(server, "owner");
  createDependent(server, "child", "owner", uid);
  REQUIRE(server.send("DELETE", kMaps + "/owner", R"({"propagationPolicy":"Orphan"})").status ==
          200);
  CHECK(eventually(server, "owner", 404));
  auto child = json::parse(server.get(kMaps + "/child").body);
  CHECK_FALSE(child["metadata"].contains("ownerReferences"));
}

TEST_CASE("finalizers hold a deletion until the last one is removed", "[apiserver][crud]") {
  InProcessServer server;
  REQUIRE(server
              .send("POST", kMaps,
                    R"({"metadata":{"name":"held","finalizers":["troupe.dev/cleanup"]}})")
              .status == 201);
  auto deleting = json::parse(server.send("DELETE", kMaps + "/held", "").body);
  CHECK(deleting["metadata"].contains("deletionTimestamp"));
  CHECK(server.get(kMaps + "/held").status == 200);
  auto released = server.send("PATCH", kMaps + "/held", R"({"metadata":{"finalizers":null}})",
                              "application/merge-patch+json");
  CHECK(released.status == 200);
  CHECK(server.get(kMaps + "/held").status == 404);
}

TEST_CASE("deleting a namespace deletes what is in it", "[apiserver][gc]") {
  InProcessServer server;
  REQUIRE(server.send("POST", "/api/v1/namespaces", R"({"metadata":{"name":"doomed"}})").status ==
          201);
  REQUIRE(
      server.send("POST", "/api/v1/namespaces/doomed/configmaps", R"({"metadata":{"name":"x"}})")
          .status == 201);
  REQUIRE(server.send("DELETE", "/api/v1/namespaces/doomed", "").status == 200);
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    gone = server.get("/api/v1/namespaces/doomed/configmaps/x").status == 404;
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  CHECK(gone);
}

TEST_CASE("a namespace being deleted takes no new objects, though it took one just before",
          "[apiserver][crud]") {
  InProcessServer server;
  const std::string maps = "/api/v1/namespaces/closing/configmaps";
  REQUIRE(server.send("POST", "/api/v1/namespaces", R"({"metadata":{"name":"closing"}})").status ==
          201);
  // Creates in a namespace known to be active; the server remembers it as such.
  for (const char* name : {"a", "b"}) {
    REQUIRE(server.send("POST", maps, json{{"metadata", {{"name", name}}}}.dump()).status == 201);
  }
  REQUIRE(server.send("DELETE", "/api/v1/namespaces/closing", "").status == 200);
  // At once: Forbidden while the namespace terminates, NotFound once it is gone.
  auto refused = server.send("POST", maps, R"({"metadata":{"name":"c"}})");
  CHECK((refused.status == 403 || refused.status == 404));
  if (refused.status == 403) {
    CHECK(json::parse(refused.body)["message"].get<std::string>().find("being terminated") !=
          std::string::npos);
  }
  // And a namespace made again under the same name takes objects again.
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    gone = server.get("/api/v1/namespaces/closing").status == 404;
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  REQUIRE(gone);
  CHECK(server.send("POST", maps, R"({"metadata":{"name":"d"}})").status == 404);
  REQUIRE(server.send("POST", "/api/v1/namespaces", R"({"metadata":{"name":"closing"}})").status ==
          201);
  CHECK(server.send("POST", maps, R"({"metadata":{"name":"e"}})").status == 201);
}

}  // namespace
}  // namespace troupe::testing
