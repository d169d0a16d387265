// The REST surface against the recorded kube-apiserver responses: same Status bodies,
// same envelopes, same discovery shapes. Requests go through real HTTPS (curl) to a
// server in this process over an in-memory store.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <sstream>

#include "test/support/in_process_server.h"

namespace troupe::testing {
namespace {

using json = nlohmann::json;

const char* kJobs = "/apis/troupe.dev/v1alpha1/namespaces/fixtures/trainingjobs";

std::string llama(const std::string& name, int replicas = 4) {
  return json{
      {"apiVersion", "troupe.dev/v1alpha1"},
      {"kind", "TrainingJob"},
      {"metadata", {{"name", name}, {"namespace", "fixtures"}, {"labels", {{"team", "nlp"}}}}},
      {"spec", {{"queue", "gpu-high"}, {"replicas", replicas}, {"gpusPerReplica", 8}}}}
      .dump();
}

void createFixturesNamespace(const InProcessServer& server) {
  auto reply = server.send("POST", "/api/v1/namespaces", R"({"metadata":{"name":"fixtures"}})");
  REQUIRE(reply.status == 201);
}

std::set<std::string> keysOf(const json& object) {
  std::set<std::string> keys;
  for (auto it = object.begin(); it != object.end(); ++it) keys.insert(it.key());
  return keys;
}

TEST_CASE("health, version and discovery answer like kube-apiserver", "[apiserver][discovery]") {
  InProcessServer server;
  HttpCall anonymous;
  anonymous.path = "/healthz";
  auto health = httpsRequest(server.port(), anonymous);
  CHECK(health.status == 200);
  CHECK(health.body == fixture("healthz.txt"));

  anonymous.path = "/version";
  auto version = json::parse(httpsRequest(server.port(), anonymous).body);
  CHECK(keysOf(version) == keysOf(json::parse(fixture("version.json"))));
  CHECK(version["minor"] == "28");

  // Aggregated discovery when asked for, with the content type kubectl checks.
  auto apis = server.get(
      "/apis",
      "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json");
  CHECK(apis.status == 200);
  CHECK(apis.content_type ==
        "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList");
  auto aggregated = json::parse(apis.body);
  CHECK(keysOf(aggregated) == keysOf(json::parse(fixture("discovery-apis-aggregated.json"))));
  bool troupe_listed = false;
  for (const auto& group : aggregated["items"]) {
    if (group["metadata"].value("name", "") != "troupe.dev") continue;
    troupe_listed = true;
    const auto& resource = group["versions"][0]["resources"][0];
    CHECK(resource["resource"] == "trainingjobs");
    CHECK(resource["subresources"].size() == 2);
  }
  CHECK(troupe_listed);

  // The plain group/version resource list is the recorded one, field for field.
  auto list = json::parse(server.get("/apis/troupe.dev/v1alpha1").body);
  auto want = json::parse(fixture("discovery-troupe-v1alpha1.json"));
  for (auto& r : want["resources"]) r.erase("storageVersionHash");
  CHECK(list == want);

  auto unknown = server.get("/apis/troupe.dev/v1alpha1/namespaces/fixtures/widgets");
  CHECK(unknown.status == 404);
  CHECK(unknown.body == fixture("err-404-unknown-resource.txt"));
}

TEST_CASE("authentication and authorisation failures are the recorded Status bodies",
          "[apiserver][auth]") {
  InProcessServer server;
  createFixturesNamespace(server);
  HttpCall call;
  call.path = kJobs;
  call.token = "not-a-real-token-0000000000";
  auto unauthorized = httpsRequest(server.port(), call);
  CHECK(unauthorized.status == 401);
  CHECK(json::parse(unauthorized.body) == json::parse(fixture("err-401-unauthorized.json")));

  // A tenant of namespace "fixtures" may list its TrainingJobs but not those elsewhere.
  call.token = InProcessServer::kTenantToken;
  CHECK(httpsRequest(server.port(), call).status == 200);
  call.path = "/apis/troupe.dev/v1alpha1/namespaces/other/trainingjobs";
  auto forbidden = httpsRequest(server.port(), call);
  CHECK(forbidden.status == 403);
  auto want = json::parse(fixture("err-403-forbidden.json"));
  want["message"] =
      "trainingjobs.troupe.dev is forbidden: User \"alice\" cannot list resource \"trainingjobs\" "
      "in API group \"troupe.dev\" in the namespace \"other\"";
  CHECK(json::parse(forbidden.body) == want);

  call.path = "/api/v1/namespaces/fixtures/secrets";
  CHECK(httpsRequest(server.port(), call).status == 403);
}

TEST_CASE("create, conflict, not found and patch follow the recorded shapes", "[apiserver][crud]") {
  InProcessServer server;
  createFixturesNamespace(server);

  auto created = server.send("POST", kJobs, llama("llama-a"));
  REQUIRE(created.status == 201);
  auto object = json::parse(created.body);
  auto recorded = json::parse(fixture("tj-create.json"));
  CHECK(keysOf(object) == std::set<std::string>{"apiVersion", "kind", "metadata", "spec"});
  for (const char* key :
       {"uid", "resourceVersion", "generation", "creationTimestamp", "name", "namespace"}) {
    INFO(key);
    CHECK(object["metadata"].contains(key));
    CHECK(recorded["metadata"].contains(key));
  }
  CHECK(object["metadata"]["generation"] == 1);

  auto again = server.send("POST", kJobs, llama("llama-a"));
  CHECK(again.status == 409);
  CHECK(json::parse(again.body) == json::parse(fixture("err-409-already-exists.json")));

  auto missing = server.get(std::string(kJobs) + "/does-not-exist");
  CHECK(missing.status == 404);
  CHECK(json::parse(missing.body) == json::parse(fixture("err-404-not-found.json")));

  std::string stale = object.dump();
  auto patched = server.send("PATCH", std::string(kJobs) + "/llama-a",
                             R"({"spec":{"replicas":6},"metadata":{"labels":{"bump":"1"}}})",
                             "application/merge-patch+json");
  REQUIRE(patched.status == 200);
  // spec changed: generation 1 -> 2
  CHECK(json::parse(patched.body)["metadata"]["generation"] == 2);

  auto conflict = server.send("PUT", std::string(kJobs) + "/llama-a", stale);
  CHECK(conflict.status == 409);
  CHECK(json::parse(conflict.body) == json::parse(fixture("err-409-conflict.json")));

  auto smp = server.send("PATCH", std::string(kJobs) + "/llama-a", R"({"spec":{"replicas":2}})",
                         "application/strategic-merge-patch+json");
  CHECK(smp.status == 415);
  CHECK(json::parse(smp.body) == json::parse(fixture("err-415-smp-on-cr.json")));

  auto json_patch = server.send(
      "PATCH", std::string(kJobs) + "/llama-a",
      R"([{"op":"test","path":"/spec/replicas","value":6},{"op":"replace","path":"/spec/replicas","value":5}])",
      "application/json-patch+json");
  CHECK(json_patch.status == 200);
  CHECK(json::parse(json_patch.body)["spec"]["replicas"] == 5);

  auto bad = server.send("POST", kJobs, R"({"apiVersion":"troupe.dev/v1al)");
  CHECK(bad.status == 400);
  auto bad_status = json::parse(bad.body);
  CHECK(keysOf(bad_status) == keysOf(json::parse(fixture("err-400-bad-json.json"))));
  CHECK(bad_status["reason"] == "BadRequest");

  auto huge = server.send("POST", kJobs, std::string(70 * 1024, ' ') + llama("big"));
  CHECK(huge.status == 413);
  CHECK(json::parse(huge.body)["message"] == "Request entity too large: limit is 65536");
}

TEST_CASE("a patch that names a stale resourceVersion conflicts and changes nothing",
          "[apiserver][crud]") {
  InProcessServer server;
  createFixturesNamespace(server);
  auto created = server.send("POST", kJobs, llama("llama-rv"));
  REQUIRE(created.status == 201);
  const std::string url = std::string(kJobs) + "/llama-rv";
  const std::string first = json::parse(created.body)["metadata"]["resourceVersion"];

  // The current version: the patch applies.
  auto current = server.send(
      "PATCH", url, R"({"metadata":{"resourceVersion":")" + first + R"("},"spec":{"replicas":6}})",
      "application/merge-patch+json");
  REQUIRE(current.status == 200);
  const auto after = json::parse(current.body);
  CHECK(after["spec"]["replicas"] == 6);
  CHECK(after["metadata"]["resourceVersion"] != first);

  // The version it was made from is gone: 409, the recorded answer to a stale write.
  auto want = json::parse(fixture("err-409-conflict.json"));
  std::string message = want["message"];
  message.replace(message.find("llama-a"), 7, "llama-rv");
  want["message"] = message;
  want["details"]["name"] = "llama-rv";
  const std::vector<std::pair<std::string, std::string>> stale_patches = {
      {"application/merge-patch+json",
       R"({"metadata":{"resourceVersion":")" + first + R"("},"spec":{"replicas":9}})"},
      {"application/json-patch+json",
       R"([{"op":"replace","path":"/metadata/resourceVersion","value":")" + first +
           R"("},{"op":"replace","path":"/spec/replicas","value":9}])"}};
  for (const auto& [type, body] : stale_patches) {
    INFO(type);
    auto refused = server.send("PATCH", url, body, type);
    CHECK(refused.status == 409);
    CHECK(json::parse(refused.body) == want);
  }
  auto status_refused =
      server.send("PATCH", url + "/status",
                  R"({"metadata":{"resourceVersion":")" + first + R"("},"status":{"phase":"X"}})",
                  "application/merge-patch+json");
  CHECK(status_refused.status == 409);

  auto unchanged = json::parse(server.get(url).body);
  CHECK(unchanged["spec"]["replicas"] == 6);
  CHECK(unchanged["metadata"]["resourceVersion"] == after["metadata"]["resourceVersion"]);
  CHECK_FALSE((unchanged.contains("status") && unchanged["status"].contains("phase")));
}

TEST_CASE("a body far over the limit still gets its 413 while the client is sending",
          "[apiserver][crud]") {
  // The server answers once it reads the Content-Length, with megabytes still on the way:
  // closing on them would reset the connection, and the client would never read the
  // answer. Without "Expect: 100-continue" the client sends the body at once.
  InProcessServer server;
  createFixturesNamespace(server);
  for (int attempt = 0; attempt < 3; ++attempt) {
    HttpCall call;
    call.method = "POST";
    call.path = kJobs;
    call.token = server.adminToken();
    call.body = std::string(4 * 1024 * 1024, ' ') + llama("big");
    call.headers = {{"Content-Type", "application/json"}, {"Expect", ""}};
    auto huge = httpsRequest(server.port(), call);
    REQUIRE(huge.status == 413);
    CHECK(json::parse(huge.body)["reason"] == "RequestEntityTooLarge");
  }
  CHECK(server.send("POST", kJobs, llama("after")).status == 201);
}

TEST_CASE("status and scale subresources keep to their halves of the object", "[apiserver][crud]") {
  InProcessServer server;
  createFixturesNamespace(server);
  REQUIRE(server.send("POST", kJobs, llama("llama-a")).status == 201);

  // A PUT to /status ignores spec; a main write ignores status.
  auto current = json::parse(server.get(std::string(kJobs) + "/llama-a").body);
  current["spec"]["replicas"] = 99;
  current["status"] = {
      {"phase", "Running"}, {"replicas", 4}, {"selector", "troupe.dev/job=llama-a"}};
  auto status = server.send("PUT", std::string(kJobs) + "/llama-a/status", current.dump());
  REQUIRE(status.status == 200);
  auto after = json::parse(status.body);
  CHECK(after["spec"]["replicas"] == 4);
  CHECK(after["status"]["phase"] == "Running");
  CHECK(after["metadata"]["generation"] == 1);

  auto scale = server.get(std::string(kJobs) + "/llama-a/scale");
  REQUIRE(scale.status == 200);
  auto scale_object = json::parse(scale.body);
  CHECK(keysOf(scale_object) == keysOf(json::parse(fixture("tj-scale-get.json"))));
  CHECK(scale_object["spec"]["replicas"] == 4);
  CHECK(scale_object["status"]["selector"] == "troupe.dev/job=llama-a");

  auto scaled = server.send("PATCH", std::string(kJobs) + "/llama-a/scale",
                            R"({"spec":{"replicas":7}})", "application/merge-patch+json");
  REQUIRE(scaled.status == 200);
  CHECK(json::parse(server.get(std::string(kJobs) + "/llama-a").body)["spec"]["replicas"] == 7);
}

TEST_CASE("lists page with continue tokens and filter by selectors", "[apiserver][list]") {
  InProcessServer server;
  createFixturesNamespace(server);
  for (const char* name : {"llama-a", "llama-b", "llama-c"})
    REQUIRE(server.send("POST", kJobs, llama(name)).status == 201);
  REQUIRE(server
              .send("PATCH", std::string(kJobs) + "/llama-c",
                    R"({"metadata":{"labels":{"team":"vision"}}})", "application/merge-patch+json")
              .status == 200);

  auto page1 = json::parse(server.get(std::string(kJobs) + "?limit=2").body);
  CHECK(keysOf(page1) == keysOf(json::parse(fixture("tj-list-limit.json"))));
  REQUIRE(page1["items"].size() == 2);
  REQUIRE(page1["metadata"].contains("continue"));
  auto page2 = json::parse(server
                               .get(std::string(kJobs) + "?limit=2&continue=" +
                                    page1["metadata"]["continue"].get<std::string>())
                               .body);
  REQUIRE(page2["items"].size() == 1);
  CHECK(page2["items"][0]["metadata"]["name"] == "llama-c");
  CHECK_FALSE(page2["metadata"].contains("continue"));

  struct Case {
    std::string name, query;
    std::vector<std::string> want;
  };
  std::vector<Case> cases = {
      {"label equality", "labelSelector=team%3Dnlp", {"llama-a", "llama-b"}},
      {"label inequality", "labelSelector=team!%3Dnlp", {"llama-c"}},
      {"label set", "labelSelector=team%20in%20(vision,x)", {"llama-c"}},
      {"field metadata.name", "fieldSelector=metadata.name%3Dllama-b", {"llama-b"}},
      {"selector and limit", "labelSelector=team%3Dnlp&limit=1", {"llama-a"}},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto list = json::parse(server.get(std::string(kJobs) + "?" + tc.query).body);
      std::vector<std::string> names;
      for (const auto& item : list["items"]) names.push_back(item["metadata"]["name"]);
      CHECK(names == tc.want);
    }
  }
}

TEST_CASE("server-side printing gives the CRD's printer columns", "[apiserver][table]") {
  InProcessServer server;
  createFixturesNamespace(server);
  REQUIRE(server.send("POST", kJobs, llama("llama-a")).status == 201);
  const char* accept =
      "application/json;as=Table;v=v1;g=meta.k8s.io,application/"
      "json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
  auto table = json::parse(server.get(std::string(kJobs) + "?limit=500", accept).body);
  auto recorded = json::parse(fixture("tj-table.json"));
  CHECK(keysOf(table) == keysOf(recorded));
  CHECK(table["columnDefinitions"] == recorded["columnDefinitions"]);
  REQUIRE(table["rows"].size() == 1);
  auto cells = table["rows"][0]["cells"];
  CHECK(cells[0] == "llama-a");
  CHECK(cells[1] == "gpu-high");
  CHECK(cells[2] == 4);
  CHECK(cells[4].is_null());  // no status.phase yet
  CHECK(table["rows"][0]["object"]["kind"] == "PartialObjectMetadata");

  auto protobuf_only =
      server.get(std::string(kJobs) + "/llama-a", "application/vnd.kubernetes.protobuf");
  CHECK(protobuf_only.status == 406);
  auto fallback = server.get("/api/v1/namespaces/fixtures/events?limit=1",
                             "application/vnd.kubernetes.protobuf;q=0.9,application/json");
  CHECK(fallback.status == 200);
  CHECK(fallback.content_type == "application/json");
}

TEST_CASE("a watch streams events, bookmarks and ends after timeoutSeconds", "[apiserver][watch]") {
  InProcessServer server;
  createFixturesNamespace(server);
  REQUIRE(server.send("POST", kJobs, llama("llama-a")).status == 201);
  auto list = json::parse(server.get(kJobs).body);
  std::string rv = list["metadata"]["resourceVersion"];
  REQUIRE(server.send("POST", kJobs, llama("llama-w")).status == 201);
  REQUIRE(server.send("DELETE", std::string(kJobs) + "/llama-w", "").status == 200);

  auto watch =
      server.get(std::string(kJobs) +
                 "?watch=true&allowWatchBookmarks=true&timeoutSeconds=2&resourceVersion=" + rv);
  CHECK(watch.status == 200);
  std::vector<std::string> types;
  std::istringstream lines(watch.body);
  std::string line;
  while (std::getline(lines, line)) {
    auto event = json::parse(line);
    CHECK(keysOf(event) == std::set<std::string>{"type", "object"});
    types.push_back(event["type"]);
  }
  CHECK(types == std::vector<std::string>{"ADDED", "DELETED", "BOOKMARK"});

  auto from_zero =
      server.get(std::string(kJobs) + "?watch=true&timeoutSeconds=1&resourceVersion=0");
  CHECK(json::parse(from_zero.body.substr(0, from_zero.body.find('\n')))["type"] == "ADDED");
}

TEST_CASE("a pod's limits default its missing requests, and quantities come back as strings",
          "[apiserver][pods]") {
  InProcessServer server;
  createFixturesNamespace(server);
  // As in the recorded pod-create-default-scheduler.json: limits only, requests defaulted.
  auto gpus = server.send(
      "POST", "/api/v1/namespaces/fixtures/pods",
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"gpus"},"spec":{"containers":[{"name":"c","image":"x:1","resources":{"limits":{"nvidia.com/gpu":"6"}}}]}})");
  REQUIRE(gpus.status == 201);
  const json recorded = json::parse(fixture("pod-create-default-scheduler.json"));
  const json created = json::parse(gpus.body);
  CHECK(created["spec"]["containers"][0]["resources"] ==
        recorded["spec"]["containers"][0]["resources"]);
  CHECK(created["status"]["qosClass"] == recorded["status"]["qosClass"]);

  // A number is accepted and written back canonical; a request given is kept. The main
  // container alone would be Guaranteed (its limits defaulted into requests), but the init
  // container limits no memory: Burstable, as the real server's QoS counts init containers.
  auto mixed = server.send(
      "POST", "/api/v1/namespaces/fixtures/pods",
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"mixed"},"spec":{"initContainers":[{"name":"i","image":"x:1","resources":{"limits":{"cpu":0.5}}}],"containers":[{"name":"c","image":"x:1","resources":{"limits":{"nvidia.com/gpu":8,"cpu":"4","memory":"8Gi"},"requests":{"cpu":"4"}}}]}})");
  REQUIRE(mixed.status == 201);
  const json pod = json::parse(mixed.body);
  CHECK(pod["spec"]["containers"][0]["resources"] ==
        json::parse(R"({"limits":{"nvidia.com/gpu":"8","cpu":"4","memory":"8Gi"},
                        "requests":{"nvidia.com/gpu":"8","cpu":"4","memory":"8Gi"}})"));
  CHECK(pod["spec"]["initContainers"][0]["resources"] ==
        json::parse(R"({"limits":{"cpu":"500m"},"requests":{"cpu":"500m"}})"));
  CHECK(pod["status"]["qosClass"] == "Burstable");

  auto guaranteed = server.send(
      "POST", "/api/v1/namespaces/fixtures/pods",
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"guaranteed"},"spec":{"containers":[{"name":"c","image":"x:1","resources":{"limits":{"nvidia.com/gpu":8,"cpu":"4","memory":"8Gi"}}}]}})");
  REQUIRE(guaranteed.status == 201);
  CHECK(json::parse(guaranteed.body)["status"]["qosClass"] == "Guaranteed");
}

TEST_CASE("binding a pod answers a Success Status, and a second binding conflicts",
          "[apiserver][pods]") {
  InProcessServer server;
  createFixturesNamespace(server);
  auto pod = server.send(
      "POST", "/api/v1/namespaces/fixtures/pods",
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"llama-a-worker-0"},"spec":{"containers":[{"name":"c","image":"x:1"}]}})");
  REQUIRE(pod.status == 201);
  auto created = json::parse(pod.body);
  CHECK(created["status"]["phase"] == "Pending");
  CHECK(created["spec"]["schedulerName"] == "default-scheduler");

  std::string binding =
      R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"llama-a-worker-0"},"target":{"kind":"Node","name":"gpu-node-1"}})";
  auto bound =
      server.send("POST", "/api/v1/namespaces/fixtures/pods/llama-a-worker-0/binding", binding);
  CHECK(bound.status == 201);
  CHECK(json::parse(bound.body) == json::parse(fixture("pod-binding.json")));
  auto again =
      server.send("POST", "/api/v1/namespaces/fixtures/pods/llama-a-worker-0/binding", binding);
  CHECK(again.status == 409);
  CHECK(json::parse(again.body) == json::parse(fixture("err-409-binding-already-bound.json")));

  auto selected =
      json::parse(server.get("/api/v1/pods?fieldSelector=spec.nodeName%3Dgpu-node-1").body);
  CHECK(selected["items"].size() == 1);

  // The Binding's annotations are copied onto the pod, as the real server does.
  REQUIRE(
      server
          .send(
              "POST", "/api/v1/namespaces/fixtures/pods",
              R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"w1"},"spec":{"containers":[{"name":"c","image":"x:1"}]}})")
          .status == 201);
  auto annotated = server.send(
      "POST", "/api/v1/namespaces/fixtures/pods/w1/binding",
      R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"w1","annotations":{"troupe.dev/gpus":"0,1"}},"target":{"kind":"Node","name":"gpu-node-1"}})");
  CHECK(annotated.status == 201);
  auto w1 = json::parse(server.get("/api/v1/namespaces/fixtures/pods/w1").body);
  CHECK(w1["metadata"]["annotations"]["troupe.dev/gpus"] == "0,1");
  CHECK(w1["spec"]["nodeName"] == "gpu-node-1");

  // Bound pods are deleted gracefully (a kubelet finishes), unless the grace period is 0.
  auto graceful = json::parse(
      server.send("DELETE", "/api/v1/namespaces/fixtures/pods/llama-a-worker-0", "").body);
  CHECK(graceful["metadata"]["deletionGracePeriodSeconds"] == 30);
  CHECK(server.get("/api/v1/namespaces/fixtures/pods/llama-a-worker-0").status == 200);
  CHECK(server
            .send("DELETE", "/api/v1/namespaces/fixtures/pods/llama-a-worker-0",
                  R"({"gracePeriodSeconds":0})")
            .status == 200);
  CHECK(server.get("/api/v1/namespaces/fixtures/pods/llama-a-worker-0").status == 404);
}

}  // namespace
}  // namespace troupe::testing

namespace troupe::testing {
namespace {

TEST_CASE("custom resources are pruned, defaulted and validated against the CRD schema",
          "[apiserver][validation]") {
  InProcessServer server;
  createFixturesNamespace(server);
  struct Case {
    std::string name, body, want_fixture;
  };
  std::vector<Case> cases = {
      {"schema violations, every one a cause",
       R"({"apiVersion":"troupe.dev/v1alpha1","kind":"TrainingJob","metadata":{"name":"bad-job","namespace":"fixtures"},"spec":{"queue":"","replicas":0,"minReplicas":"two","gpusPerReplica":-1,"template":"not-an-object","unknownField":true},"status":{"phase":"Exploding"}})",
       "err-422-schema.json"},
      {"missing required fields",
       R"({"apiVersion":"troupe.dev/v1alpha1","kind":"TrainingJob","metadata":{"name":"bad-required","namespace":"fixtures"},"spec":{"gpusPerReplica":1}})",
       "err-422-required.json"},
      {"a CEL rule on spec",
       R"({"apiVersion":"troupe.dev/v1alpha1","kind":"TrainingJob","metadata":{"name":"bad-cel","namespace":"fixtures"},"spec":{"queue":"gpu-high","replicas":2,"minReplicas":3}})",
       "err-422-cel.json"},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto reply = server.send("POST", kJobs, tc.body);
      CHECK(reply.status == 422);
      // The real server's cause order follows Go map iteration; compare them as a set.
      auto normalise = [](json status) {
        auto& causes = status["details"]["causes"];
        std::sort(causes.begin(), causes.end(),
                  [](const json& a, const json& b) { return a["field"] < b["field"]; });
        status.erase("message");
        return status;
      };
      auto got = json::parse(reply.body);
      auto want = json::parse(fixture(tc.want_fixture));
      CHECK(normalise(got) == normalise(want));
      CHECK(got["message"].get<std::string>().size() == want["message"].get<std::string>().size());
    }
  }

  // gpusPerReplica defaults to 0; an unknown field is pruned.
  auto created = server.send(
      "POST", kJobs,
      R"({"apiVersion":"troupe.dev/v1alpha1","kind":"TrainingJob","metadata":{"name":"llama-c"},"spec":{"queue":"q","replicas":1,"extra":1}})");
  REQUIRE(created.status == 201);
  auto object = json::parse(created.body);
  CHECK(object["spec"]["gpusPerReplica"] == 0);
  CHECK_FALSE(object["spec"].contains("extra"));

  auto bad_status =
      server.send("PATCH", std::string(kJobs) + "/llama-c/status",
                  R"({"status":{"phase":"Exploding"}})", "application/merge-patch+json");
  CHECK(bad_status.status == 422);
  CHECK(json::parse(bad_status.body)["details"]["causes"][0]["reason"] == "FieldValueNotSupported");
}

}  // namespace
}  // namespace troupe::testing
