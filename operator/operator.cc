#include "operator/operator.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <random>
#include <thread>

#include "common/helper_pool.h"
#include "common/log.h"
#include "common/thread_name.h"
#include "controllers/change_routes.h"
#include "controllers/cycle_request.h"
#include "controllers/event_writer.h"
#include "controllers/informer_caches.h"
#include "controllers/object_json.h"
#include "controllers/operator_metrics.h"
#include "controllers/pod_group_reconciler.h"
#include "controllers/scheduler_loop.h"
#include "controllers/training_job_reconciler.h"
#include "controllers/work_item.h"
#include "kube/event_recorder.h"
#include "kube/leader_elector.h"
#include "kube/work_queue.h"
#include "operator/informer_cluster_view.h"
#include "state/state_database.h"
#include "state/state_store.h"

namespace troupe::operator_runtime {

namespace ctl = controllers;

namespace {

std::string defaultIdentity() {
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  return fmt::format("{}_{:08x}", host, std::random_device{}());
}

}  // namespace

// The controllers and what they share, made in the order they depend on each other (and
// destroyed the other way round).
struct Operator::Controllers {
  state::StateStore state;
  kube::WorkQueue queue{std::chrono::milliseconds(50), std::chrono::seconds(60)};
  // Threads that carry the writes of a cycle or reconcile several at once (the bindings of
  // a cycle beside the reconcile workers' writes, as many as the client has connections).
  HelperPool helpers{ctl::kBindWidth + 2 * ctl::kWriteWidth, "op-write"};
  kube::EventRecorder recorder;
  ctl::InformerCaches caches;
  // Admission's view of the caches (the webhook's).
  InformerClusterView cluster_view;
  ctl::CycleRequest cycle_request;
  ctl::ClusterWriter writer;
  ctl::EventWriter events;
  ctl::SchedulerLoop loop;
  ctl::TrainingJobReconciler jobs;
  ctl::PodGroupReconciler groups;

  Controllers(kube::KubeClient& client, state::StateDatabase& db, MetricsRegistry& metrics,
              const TimeSource& time, const OperatorOptions& options)
      : state(db),
        recorder(client, ctl::kFieldManager),
        caches(client),
        cluster_view(caches.queues().cache(), caches.namespaces().cache()),
        writer(client, caches, helpers, time),
        events(recorder, caches, time),
        loop(caches, writer, events, state, metrics, time,
             {options.topology_levels, options.usage_mirror_interval}),
        jobs(caches, writer, events, state, queue, cycle_request, metrics, time),
        groups(caches, writer, events, queue, time) {
    ctl::routeChanges(caches, queue, cycle_request);
  }

  // A new leadership: the loop recovers, then every job and group is reconciled and a
  // cycle runs.
  void startLeading() {
    loop.startLeading();
    for (const auto& key : caches.trainingJobs().cache().keys())
      queue.add(ctl::trainingJobItem(key));
    for (const auto& key : caches.podGroups().cache().keys()) queue.add(ctl::podGroupItem(key));
    cycle_request.ask();
  }

  void reconcile(const std::string& item) {
    auto parsed = ctl::parseWorkItem(item);
    if (!parsed) return;
    if (parsed->kind == ctl::WorkKind::TrainingJob) {
      jobs.reconcile(parsed->key);
    } else {
      groups.reconcile(parsed->key);
    }
  }
};

Result<std::unique_ptr<Operator>> Operator::create(kube::KubeClient& client,
                                                   OperatorOptions options,
                                                   const TimeSource& time) {
  if (options.state_dir.empty())
    return makeError(ErrorCode::Invalid, "--state-dir",
                     "Required value: a directory for the state store");
  auto db = state::StateDatabase::open(options.state_dir);
  if (!db) return db.error();
  if (options.identity.empty()) options.identity = defaultIdentity();
  return std::unique_ptr<Operator>(new Operator(client, std::move(options), time, std::move(*db)));
}

Operator::Operator(kube::KubeClient& client, OperatorOptions options, const TimeSource& time,
                   std::unique_ptr<state::StateDatabase> db)
    : client_(client), options_(std::move(options)), time_(time), db_(std::move(db)) {
  ctl::defineOperatorMetrics(metrics_);
  metrics_.set("troupe_leader", {}, 0);
  metrics_.set("troupe_caches_synced", {}, 0);
  controllers_ = std::make_unique<Controllers>(client_, *db_, metrics_, time_, options_);
}

Operator::~Operator() { stop(); }

bool Operator::synced() const { return controllers_->caches.synced(); }
const admission::ClusterView& Operator::clusterView() const { return controllers_->cluster_view; }
bool Operator::leading() const { return leading_.load(); }
std::int64_t Operator::cycles() const { return controllers_->loop.cycles(); }

void Operator::start() {
  std::lock_guard lock(lifecycle_mu_);
  if (started_) return;
  started_ = true;
  controllers_->caches.start();
  if (options_.leader_elect) {
    startElection();
  } else {
    leading_ = true;
    metrics_.set("troupe_leader", {}, 1);
  }
  control_thread_ = std::jthread([this](std::stop_token stop) {
    nameThisThread("op-schedule");
    controlLoop(stop);
  });
  for (int i = 0; i < std::max(1, options_.reconcile_workers); ++i)
    workers_.emplace_back([this](std::stop_token stop) {
      nameThisThread("op-reconcile");
      reconcileLoop(stop);
    });
}

void Operator::startElection() {
  kube::LeaderElectionConfig config;
  config.lease_namespace = options_.leader_election_namespace;
  config.lease_name = options_.leader_election_id;
  config.identity = options_.identity;
  config.lease_duration = options_.lease_duration;
  config.renew_deadline = options_.renew_deadline;
  config.retry_period = options_.retry_period;
  config.on_started_leading = [this] {
    log::info("started leading", {{"identity", options_.identity}});
    leading_ = true;
    metrics_.set("troupe_leader", {}, 1);
  };
  config.on_stopped_leading = [this] {
    log::warn("stopped leading", {{"identity", options_.identity}});
    leading_ = false;
    metrics_.set("troupe_leader", {}, 0);
  };
  auto elector = kube::LeaderElector::create(client_, time_, config);
  TROUPE_CHECK(elector.ok(), "leader election config: {}", elector.error().describe());
  elector_ = std::move(*elector);
  elector_thread_ = std::jthread([this](std::stop_token stop) {
    nameThisThread("op-elector");
    // Campaign only once the caches are synced: a replica that cannot act must not lead.
    while (!stop.stop_requested() && !synced())
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (!stop.stop_requested()) elector_->run(stop);
  });
}

void Operator::stop() {
  std::lock_guard lock(lifecycle_mu_);
  if (!started_) return;
  started_ = false;
  control_thread_.request_stop();
  for (auto& w : workers_) w.request_stop();
  controllers_->queue.shutDown();
  if (control_thread_.joinable()) control_thread_.join();
  workers_.clear();  // joins: each finishes the reconcile in hand
  controllers_->recorder.stop();
  elector_thread_.request_stop();
  if (elector_thread_.joinable()) elector_thread_.join();
  controllers_->caches.stop();
  leading_ = false;
  log::info("operator stopped");
}

void Operator::controlLoop(std::stop_token stop) {
  auto& c = *controllers_;
  bool was_leading = false;
  auto last_cycle = std::chrono::steady_clock::time_point{};
  while (!stop.stop_requested()) {
    const bool synced_now = synced();
    metrics_.set("troupe_caches_synced", {}, synced_now ? 1 : 0);
    if (!leading_ || !synced_now) {
      was_leading = false;
      acting_ = false;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    if (!was_leading) {
      c.startLeading();
      was_leading = true;
      acting_ = true;
    }
    const auto since = std::chrono::steady_clock::now() - last_cycle;
    // The engine's own next moment (a starving deadline, a runtime estimate ending) brings
    // the timer forward.
    const auto wakeup = c.loop.nextWakeup();
    const bool wakeup_due = wakeup && ctl::epochSeconds(time_.now()) >= *wakeup;
    if (((c.cycle_request.asked() || wakeup_due) && since >= options_.min_cycle_gap) ||
        since >= options_.cycle_interval) {
      c.cycle_request.take();
      // Cycles are spaced from start to start: a long cycle is not followed by a full gap
      // of idleness while work waits.
      last_cycle = std::chrono::steady_clock::now();
      c.loop.runCycle();
      continue;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  acting_ = false;
}

// Reconciles TrainingJobs and PodGroups from the work queue; several run at once, never
// two on one key (the work queue's rule), each level-triggered on what the caches hold.
void Operator::reconcileLoop(std::stop_token stop) {
  auto& c = *controllers_;
  while (!stop.stop_requested() && !c.queue.shuttingDown()) {
    if (!acting_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    auto item = c.queue.getFor(std::chrono::milliseconds(100));
    if (!item) continue;
    c.reconcile(*item);
    c.queue.done(*item);
    c.queue.forget(*item);
  }
}

}  // namespace troupe::operator_runtime
