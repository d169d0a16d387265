#include "test/controllers/loop_cluster.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "api/crd_manifests.h"
#include "controllers/operator_metrics.h"
#include "loopback/loopback_transport.h"
#include "test/support/memory_object_store.h"

namespace troupe::controllers::testing {
namespace {

namespace res = kube::resources;

// resourceVersion of every object of one kind, by key, as a listing shows them.
std::map<std::string, std::string> versions(const std::vector<Json>& items) {
  std::map<std::string, std::string> out;
  for (const auto& o : items) out[keyOf(o)] = stringAt(o, "/metadata/resourceVersion");
  return out;
}

}  // namespace

LoopCluster::LoopCluster() {
  apiserver::StandaloneOptions options;
  options.data_dir = dir_.path() + "/server";
  options.port = 0;
  options.io_threads = 1;
  options.worker_threads = 2;
  for (const auto& crd : api::crdManifests()) options.crd_manifests.emplace_back(crd.yaml);
  server_ = std::make_unique<apiserver::StandaloneServer>(
      options, std::make_unique<troupe::testing::MemoryObjectStore>());
  auto started = server_->start();
  REQUIRE(started.ok());
  kube::ClientConfig config;
  config.source = "scheduler loop test (loopback)";
  config.token = server_->adminToken();
  config.qps = 10000;
  config.burst = 10000;
  config.max_retries = 0;
  auto* server = server_.get();
  client_ = kube::RestKubeClient::create(
      config,
      std::make_unique<loopback::LoopbackTransport>(
          [server](const apiserver::http::Request& request) { return server->handle(request); }));
  auto database = state::StateDatabase::open(dir_.path() + "/state");
  REQUIRE(database.ok());
  database_ = std::move(*database);
  state_ = std::make_unique<state::StateStore>(*database_);
  defineOperatorMetrics(metrics_);
  helpers_ = std::make_unique<HelperPool>(4, "test-write");
  recorder_ = std::make_unique<kube::EventRecorder>(*client_, kFieldManager, 1);
  caches_ = std::make_unique<InformerCaches>(*client_);
  writer_ = std::make_unique<ClusterWriter>(*client_, *caches_, *helpers_, time_);
  events_ = std::make_unique<EventWriter>(*recorder_, *caches_, time_);
  loop_ = std::make_unique<SchedulerLoop>(*caches_, *writer_, *events_, *state_, metrics_, time_,
                                          SchedulerLoopOptions{});
  caches_->start();
}

LoopCluster::~LoopCluster() {
  recorder_->stop();
  caches_->stop();
  server_->stop();
}

Json LoopCluster::create(const kube::ResourceType& type, const Json& object) {
  auto created = client_->create(type, namespaceOf(object), object, {"loop-test", false});
  INFO(object.dump());
  REQUIRE(created.ok());
  return *created;
}

Json LoopCluster::get(const kube::ResourceType& type, const std::string& ns,
                      const std::string& name) {
  auto got = client_->get({type, ns, name, ""});
  if (!got && got.error().isNotFound()) return Json();
  REQUIRE(got.ok());
  return *got;
}

void LoopCluster::removePod(const std::string& ns, const std::string& name) {
  kube::DeleteOptions options;
  options.grace_period_seconds = 0;
  auto removed = client_->remove({res::kPods, ns, name, ""}, options);
  REQUIRE(removed.ok());
}

void LoopCluster::waitForCaches() {
  struct Kind {
    const kube::ResourceType* type;
    kube::Informer* informer;
  };
  const std::vector<Kind> kinds = {{&res::kNodes, &caches_->nodes()},
                                   {&res::kQueues, &caches_->queues()},
                                   {&res::kPodGroups, &caches_->podGroups()},
                                   {&res::kPods, &caches_->pods()}};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (const auto& kind : kinds) {
    auto listed = client_->list(*kind.type, "", {});
    REQUIRE(listed.ok());
    const auto want = versions((*listed)["items"].get<std::vector<Json>>());
    for (;;) {
      std::vector<Json> cached;
      for (const auto& o : kind.informer->cache().list()) cached.push_back(*o);
      if (versions(cached) == want) break;
      REQUIRE(std::chrono::steady_clock::now() < deadline);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
}

void LoopCluster::runCycle() {
  waitForCaches();
  if (!leading_) {
    loop_->startLeading();
    leading_ = true;
  }
  loop_->runCycle();
}

Json node(const std::string& name, int gpus) {
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}}},
          {"status",
           {{"allocatable",
             {{"nvidia.com/gpu", std::to_string(gpus)}, {"cpu", "64"}, {"memory", "512Gi"}}},
            {"capacity",
             {{"nvidia.com/gpu", std::to_string(gpus)}, {"cpu", "64"}, {"memory", "512Gi"}}},
            {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}};
}

Json queue(const std::string& name, int guaranteed_gpus) {
  Json q = {{"apiVersion", "troupe.dev/v1alpha1"},
            {"kind", "Queue"},
            {"metadata", {{"name", name}}},
            {"spec", Json::object()}};
  if (guaranteed_gpus > 0) {
    q["spec"]["resources"] = {{"nvidia.com/gpu", {{"guaranteed", guaranteed_gpus}}}};
    q["spec"]["preemption"] = {{"reclaim", true}};
  }
  return q;
}

Json podGroup(const std::string& name, const std::string& queue, int min_member) {
  return {{"apiVersion", "troupe.dev/v1alpha1"},
          {"kind", "PodGroup"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec", {{"minMember", min_member}, {"queue", queue}}}};
}

Json pod(const std::string& name, const std::string& group, int gpus, int grace) {
  return {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata",
       {{"name", name}, {"namespace", "default"}, {"labels", {{"troupe.dev/pod-group", group}}}}},
      {"spec",
       {{"schedulerName", "troupe"},
        {"terminationGracePeriodSeconds", grace},
        {"containers",
         {{{"name", "trainer"},
           {"image", "trainer:1"},
           {"resources", {{"limits", {{"nvidia.com/gpu", std::to_string(gpus)}}}}}}}}}}};
}

}  // namespace troupe::controllers::testing
