#include <catch2/catch.hpp>

#include "kube/rest_kube_client.h"
#include "test/kube/support/client_for.h"
#include "test/kube/support/scripted_server.h"

using namespace troupe;
using namespace troupe::kube;
using namespace troupe::kube::testing;
using nlohmann::json;

TEST_CASE("every Status error the real apiserver sent becomes an ApiError with its details",
          "[kube][client][errors]") {
  struct Case {
    std::string fixture;
    int status;
    ErrorCode want_code;
    std::string want_reason;
    std::string want_message;  // a part of it
    std::size_t want_causes;
    std::string want_field;
  };
  std::vector<Case> cases = {
      {"err-400-bad-json.json", 400, ErrorCode::BadRequest, "BadRequest",
       "json parse error: unexpected end of JSON input", 0, ""},
      {"err-401-unauthorized.json", 401, ErrorCode::Unauthorized, "Unauthorized", "Unauthorized", 0,
       ""},
      {"err-403-forbidden.json", 403, ErrorCode::Forbidden, "Forbidden",
       "User \"alice\" cannot list resource \"trainingjobs\"", 0, ""},
      {"err-403-pod-no-serviceaccount.json", 403, ErrorCode::Forbidden, "Forbidden",
       "serviceaccount \"default\" not found", 0, ""},
      {"err-404-not-found.json", 404, ErrorCode::NotFound, "NotFound",
       "\"does-not-exist\" not found", 0, ""},
      {"err-404-unknown-resource.txt", 404, ErrorCode::NotFound, "", "404 page not found", 0, ""},
      {"err-409-already-exists.json", 409, ErrorCode::AlreadyExists, "AlreadyExists",
       "\"llama-a\" already exists", 0, ""},
      {"err-409-conflict.json", 409, ErrorCode::Conflict, "Conflict",
       "the object has been modified", 0, ""},
      {"err-409-lease-conflict.json", 409, ErrorCode::Conflict, "Conflict",
       "leases.coordination.k8s.io \"troupe-operator-leader\"", 0, ""},
      {"err-409-binding-already-bound.json", 409, ErrorCode::Conflict, "Conflict",
       "is already assigned to node \"gpu-node-1\"", 0, ""},
      {"err-409-ssa-conflict.json", 409, ErrorCode::Conflict, "Conflict",
       "Apply failed with 1 conflict", 1, ".spec.replicas"},
      {"err-410-list-continue-expired.json", 410, ErrorCode::Gone, "Expired",
       "continue parameter is too old", 0, ""},
      {"err-410-list-rv-exact-compacted.json", 410, ErrorCode::Gone, "Expired",
       "resourceVersion for the provided list is too old", 0, ""},
      {"err-415-smp-on-cr.json", 415, ErrorCode::UnsupportedMedia, "UnsupportedMediaType",
       "application/merge-patch+json", 0, ""},
      {"err-422-schema.json", 422, ErrorCode::Invalid, "Invalid",
       "spec.replicas in body should be greater than or equal to 1", 6, "spec.replicas"},
      {"err-422-required.json", 422, ErrorCode::Invalid, "Invalid", "Required value", 3,
       "spec.queue"},
      {"err-422-cel.json", 422, ErrorCode::Invalid, "Invalid", "minReplicas must be", 1, "spec"},
      {"err-422-status.json", 422, ErrorCode::Invalid, "Invalid", "Unsupported value", 1, "phase"},
      {"tj-get-protobuf-rejected.bin", 406, ErrorCode::Internal, "", "k8s", 0, ""},
  };
  ScriptedServer server;
  auto client = clientFor(configFor(server));
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.fixture) {
      server.enqueue(Reply::fixture(tc.status, tc.fixture));
      auto got = client->get(kLlamaA);
      REQUIRE_FALSE(got.ok());
      const ApiError& e = got.error();
      CHECK(e.http_status == tc.status);
      CHECK(e.code == tc.want_code);
      CHECK(e.reason == tc.want_reason);
      CHECK_THAT(e.message, Catch::Contains(tc.want_message));
      CHECK(e.causes.size() == tc.want_causes);
      CHECK(e.field_path == tc.want_field);
      CHECK_FALSE(e.isTransport());
    }
  }
}

TEST_CASE("409 AlreadyExists, 409 Conflict and 410 Gone are told apart", "[kube][client][errors]") {
  ScriptedServer server;
  auto client = clientFor(configFor(server));
  server.enqueue(Reply::fixture(409, "err-409-already-exists.json"));
  server.enqueue(Reply::fixture(409, "err-409-conflict.json"));
  server.enqueue(Reply::fixture(410, "err-410-list-continue-expired.json"));

  auto exists = client->create(resources::kTrainingJobs, "fixtures", json::object(), {});
  CHECK(exists.error().isAlreadyExists());
  CHECK_FALSE(exists.error().isConflict());
  CHECK(exists.error().details_name == "llama-a");
  CHECK(exists.error().details_group == "troupe.dev");

  auto conflict = client->update(kLlamaA, json::object(), {});
  CHECK(conflict.error().isConflict());
  CHECK_FALSE(conflict.error().isAlreadyExists());

  ListOptions options;
  options.limit = 1;
  options.continue_token = "old";
  auto gone = client->list(resources::kTrainingJobs, "fixtures", options);
  CHECK(gone.error().isGone());
  // The 410 on a continue carries a token for an inconsistent continuation.
  CHECK(gone.error().continue_token ==
        "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTEsInN0YXJ0IjoibGxhbWEtYVx1MDAwMCJ9");
  // An ApiError converts into the house Error for callers returning Result<T>.
  Result<int> as_result = gone.error();
  CHECK(as_result.error().code == ErrorCode::Gone);
}

TEST_CASE("requests carry Accept JSON, the troupe User-Agent and the bearer token",
          "[kube][client]") {
  ScriptedServer server;
  auto client = clientFor(configFor(server));
  server.enqueue(Reply::fixture(200, "tj-get.json"));
  auto got = client->get(kLlamaA);
  REQUIRE(got.ok());
  CHECK((*got)["metadata"]["name"] == "llama-a");
  const auto req = server.requests().at(0);
  CHECK(req.method == "GET");
  CHECK(req.target == "/apis/troupe.dev/v1alpha1/namespaces/fixtures/trainingjobs/llama-a");
  CHECK(req.header("accept") == "application/json");
  CHECK_THAT(req.header("user-agent"), Catch::StartsWith("troupe/0.1.0"));
  CHECK(req.header("authorization") == "Bearer test-token");
  CHECK(req.header("host") == "127.0.0.1:" + std::to_string(server.port()));
}

TEST_CASE("list sends selectors, limit and continue, and listAll pages through every item",
          "[kube][client][list]") {
  ScriptedServer server;
  auto client = clientFor(configFor(server));
  server.enqueue(Reply::fixture(200, "tj-list-limit.json"));
  server.enqueue(Reply::fixture(200, "tj-list-continue.json"));
  ListOptions options;
  options.label_selector = "team=nlp";
  options.field_selector = "metadata.name!=x";
  options.limit = 2;
  auto all = listAll(*client, resources::kTrainingJobs, "fixtures", options);
  REQUIRE(all.ok());
  // page 1: llama-a, llama-b (continue set, remainingItemCount 1); page 2: llama-c.
  REQUIRE((*all)["items"].size() == 3);
  CHECK((*all)["items"][2]["metadata"]["name"] == "llama-c");
  CHECK((*all)["metadata"]["resourceVersion"] == "200");
  CHECK_FALSE((*all)["metadata"].contains("continue"));
  const auto reqs = server.requests();
  REQUIRE(reqs.size() == 2);
  CHECK(reqs[0].path == "/apis/troupe.dev/v1alpha1/namespaces/fixtures/trainingjobs");
  CHECK(reqs[0].param("labelSelector") == "team=nlp");
  CHECK(reqs[0].param("fieldSelector") == "metadata.name!=x");
  CHECK(reqs[0].param("limit") == "2");
  CHECK_FALSE(reqs[0].hasParam("continue"));
  CHECK(reqs[1].param("continue") ==
        "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MjAwLCJzdGFydCI6ImxsYW1hLWJcdTAwMDAifQ");
  CHECK(reqs[1].param("labelSelector") == "team=nlp");
}

TEST_CASE("cluster-wide and field-selected lists address the right collections",
          "[kube][client][list]") {
  ScriptedServer server;
  auto client = clientFor(configFor(server));
  server.enqueue(Reply::fixture(200, "tj-list-all-namespaces.json"));
  server.enqueue(Reply::fixture(200, "pod-list-fieldselector.json"));
  server.enqueue(Reply::fixture(200, "event-list-fieldselector.json"));
  server.enqueue(Reply::fixture(200, "events-list-eventsv1.json"));

  auto all_ns = client->list(resources::kTrainingJobs, "", {});
  REQUIRE(all_ns.ok());
  ListOptions on_node;
  on_node.field_selector = "spec.nodeName=gpu-node-1";
  auto pods = client->list(resources::kPods, "", on_node);
  REQUIRE(pods.ok());
  CHECK((*pods)["kind"] == "PodList");
  CHECK((*pods)["items"][0]["spec"]["nodeName"] == "gpu-node-1");
  ListOptions about;
  about.field_selector = "involvedObject.name=llama-a";
  auto events = client->list(resources::kEvents, "fixtures", about);
  REQUIRE(events.ok());
  CHECK((*events)["items"].size() == 2);
  auto events_v1 = client->list(resources::kEventsV1, "fixtures", {});
  REQUIRE(events_v1.ok());
  CHECK((*events_v1)["kind"] == "EventList");

  const auto reqs = server.requests();
  CHECK(reqs[0].path == "/apis/troupe.dev/v1alpha1/trainingjobs");
  CHECK(reqs[1].target == "/api/v1/pods?fieldSelector=spec.nodeName%3Dgpu-node-1");
  CHECK(reqs[2].target ==
        "/api/v1/namespaces/fixtures/events?fieldSelector=involvedObject.name%3Dllama-a");
  CHECK(reqs[3].path == "/apis/events.k8s.io/v1/namespaces/fixtures/events");
}

TEST_CASE("writes send the right verb, path, content type and options", "[kube][client][write]") {
  ScriptedServer server;
  auto client = clientFor(configFor(server));
  for (const char* f :
       {"tj-create.json", "tj-update-put.json", "tj-status-update.json", "tj-merge-patch.json",
        "tj-json-patch.json", "pod-strategic-merge-patch.json", "tj-ssa-force.json",
        "tj-ssa-dryrun.json", "tj-delete.json", "tj-scale-patch.json"}) {
    server.enqueue(Reply::fixture(200, f));
  }
  const json job = json::parse(readFixture("tj-get.json"));

  WriteOptions manager{"troupe-operator", false};
  REQUIRE(client->create(resources::kTrainingJobs, "fixtures", job, manager).ok());
  auto put = client->update(kLlamaA, job, {});
  REQUIRE(put.ok());
  CHECK((*put)["metadata"]["name"] == "llama-a");
  REQUIRE(updateStatus(*client, kLlamaA, job).ok());
  PatchOptions merge;
  REQUIRE(client->patch(kLlamaA, {{"spec", {{"replicas", 6}}}}, merge).ok());
  PatchOptions json_patch{PatchType::Json, "", false, false};
  REQUIRE(client
              ->patch(kLlamaA,
                      json::array({{{"op", "replace"}, {"path", "/spec/replicas"}, {"value", 5}}}),
                      json_patch)
              .ok());
  PatchOptions strategic{PatchType::StrategicMerge, "", false, false};
  REQUIRE(client
              ->patch(ObjectRef{resources::kPods, "fixtures", "llama-a-worker-0", ""},
                      {{"metadata", {{"labels", {{"a", "b"}}}}}}, strategic)
              .ok());
  auto applied = apply(*client, ObjectRef{resources::kTrainingJobs, "fixtures", "llama-ssa", ""},
                       job, "someone-else", /*force=*/true);
  REQUIRE(applied.ok());
  PatchOptions dry{PatchType::Apply, "troupe-operator", true, true};
  REQUIRE(client->patch(ObjectRef{resources::kTrainingJobs, "fixtures", "llama-ssa", ""}, job, dry)
              .ok());
  DeleteOptions del;
  del.propagation_policy = "Background";
  del.grace_period_seconds = 0;
  del.precondition_uid = "uid-1";
  del.precondition_resource_version = "42";
  auto deleted =
      client->remove(ObjectRef{resources::kTrainingJobs, "fixtures", "llama-c", ""}, del);
  REQUIRE(deleted.ok());
  // Without finalizers the apiserver answers a Success Status naming the object.
  CHECK((*deleted)["status"] == "Success");
  CHECK((*deleted)["details"]["name"] == "llama-c");
  auto scaled = client->patch(ObjectRef{resources::kTrainingJobs, "fixtures", "llama-a", "scale"},
                              {{"spec", {{"replicas", 5}}}}, merge);
  REQUIRE(scaled.ok());
  CHECK((*scaled)["kind"] == "Scale");

  const auto r = server.requests();
  REQUIRE(r.size() == 10);
  const std::string base = "/apis/troupe.dev/v1alpha1/namespaces/fixtures/trainingjobs";
  CHECK(r[0].method == "POST");
  CHECK(r[0].target == base + "?fieldManager=troupe-operator");
  CHECK(r[0].header("content-type") == "application/json");
  CHECK(json::parse(r[0].body)["metadata"]["name"] == "llama-a");
  CHECK((r[1].method == "PUT" && r[1].path == base + "/llama-a"));
  CHECK(json::parse(r[1].body)["metadata"]["resourceVersion"] ==
        job["metadata"]["resourceVersion"]);
  CHECK((r[2].method == "PUT" && r[2].path == base + "/llama-a/status"));
  CHECK(r[3].method == "PATCH");
  CHECK(r[3].header("content-type") == "application/merge-patch+json");
  CHECK(r[4].header("content-type") == "application/json-patch+json");
  CHECK(r[5].path == "/api/v1/namespaces/fixtures/pods/llama-a-worker-0");
  CHECK(r[5].header("content-type") == "application/strategic-merge-patch+json");
  CHECK(r[6].header("content-type") == "application/apply-patch+yaml");
  CHECK(r[6].param("fieldManager") == "someone-else");
  CHECK(r[6].param("force") == "true");
  CHECK(r[7].param("dryRun") == "All");
  CHECK((r[8].method == "DELETE" && r[8].path == base + "/llama-c"));
  const json delete_body = json::parse(r[8].body);
  CHECK(delete_body["propagationPolicy"] == "Background");
  CHECK(delete_body["gracePeriodSeconds"] == 0);
  CHECK(delete_body["preconditions"]["uid"] == "uid-1");
  CHECK(delete_body["preconditions"]["resourceVersion"] == "42");
  CHECK(r[9].path == base + "/llama-a/scale");
}

TEST_CASE("server-side apply without a field manager is refused before sending",
          "[kube][client][write]") {
  ScriptedServer server;
  auto client = clientFor(configFor(server));
  PatchOptions apply_options{PatchType::Apply, "", false, false};
  auto refused = client->patch(kLlamaA, json::object(), apply_options);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().field_path == "fieldManager");
  CHECK(server.requests().empty());
}

TEST_CASE("binding answers a bare Success Status, binding a bound pod is a Conflict",
          "[kube][client][subresource]") {
  ScriptedServer server;
  auto client = clientFor(configFor(server));
  server.enqueue(Reply::fixture(201, "pod-binding.json"));
  server.enqueue(Reply::fixture(409, "err-409-binding-already-bound.json"));
  server.enqueue(Reply::json(
      201, R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201})"));

  auto bound = bindPod(*client, "fixtures", "llama-a-worker-0", "gpu-node-1", "uid-7");
  REQUIRE(bound.ok());
  CHECK((*bound)["status"] == "Success");
  auto again = bindPod(*client, "fixtures", "llama-a-worker-0", "gpu-node-1");
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().isConflict());
  CHECK(again.error().details_kind == "pods/binding");
  auto evicted = evictPod(*client, "fixtures", "llama-a-worker-0", 30);
  REQUIRE(evicted.ok());

  const auto r = server.requests();
  CHECK(r[0].target == "/api/v1/namespaces/fixtures/pods/llama-a-worker-0/binding");
  const json binding = json::parse(r[0].body);
  CHECK(binding["kind"] == "Binding");
  CHECK(binding["target"]["name"] == "gpu-node-1");
  CHECK(binding["metadata"]["uid"] == "uid-7");
  CHECK(r[2].target == "/api/v1/namespaces/fixtures/pods/llama-a-worker-0/eviction");
  const json eviction = json::parse(r[2].body);
  CHECK(eviction["apiVersion"] == "policy/v1");
  CHECK(eviction["deleteOptions"]["gracePeriodSeconds"] == 30);
}

TEST_CASE("leases, events and the scale subresource decode as the server sent them",
          "[kube][client]") {
  ScriptedServer server;
  auto client = clientFor(configFor(server));
  server.enqueue(Reply::fixture(200, "lease-kube-scheduler.json"));
  server.enqueue(Reply::fixture(201, "event-core-create.json"));
  server.enqueue(Reply::fixture(200, "tj-scale-get.json"));
  auto lease = client->get(ObjectRef{resources::kLeases, "kube-system", "kube-scheduler", ""});
  REQUIRE(lease.ok());
  CHECK((*lease)["spec"]["leaseDurationSeconds"] == 15);
  auto event =
      client->create(resources::kEvents, "fixtures", {{"apiVersion", "v1"}, {"kind", "Event"}}, {});
  REQUIRE(event.ok());
  CHECK((*event)["involvedObject"]["name"] == "llama-a");
  auto scale = client->get(ObjectRef{resources::kTrainingJobs, "fixtures", "llama-a", "scale"});
  REQUIRE(scale.ok());
  CHECK((*scale)["apiVersion"] == "autoscaling/v1");
  const auto r = server.requests();
  CHECK(r[0].path == "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler");
  CHECK(r[1].path == "/api/v1/namespaces/fixtures/events");
  CHECK(r[2].path == "/apis/troupe.dev/v1alpha1/namespaces/fixtures/trainingjobs/llama-a/scale");
}

TEST_CASE("a Table is asked for with kubectl's Accept header and decoded", "[kube][client]") {
  ScriptedServer server;
  auto client = clientFor(configFor(server));
  server.enqueue(Reply::fixture(200, "tj-table.json"));
  const std::string accept =
      "application/json;as=Table;v=v1;g=meta.k8s.io,application/"
      "json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
  auto table =
      client->getPath("/apis/troupe.dev/v1alpha1/namespaces/fixtures/trainingjobs", accept);
  REQUIRE(table.ok());
  CHECK((*table)["kind"] == "Table");
  CHECK((*table)["columnDefinitions"][0]["name"] == "Name");
  CHECK((*table)["rows"].size() == 3);
  CHECK((*table)["rows"][0]["object"]["kind"] == "PartialObjectMetadata");
  CHECK(server.requests().at(0).header("accept") == accept);
}

TEST_CASE("a 2xx answer that is not JSON is a protocol error naming the request",
          "[kube][client]") {
  ScriptedServer server;
  auto client = clientFor(configFor(server));
  server.enqueue(Reply::fixture(200, "healthz.txt"));
  auto not_json = client->getPath("/healthz");
  REQUIRE_FALSE(not_json.ok());
  CHECK(not_json.error().reason == "ProtocolError");
  CHECK_THAT(not_json.error().message, Catch::Contains("GET /healthz"));
  CHECK_THAT(not_json.error().message, Catch::Contains("text/plain"));
}
