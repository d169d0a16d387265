#include "operator/operator.h"

#include <fmt/format.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "api/well_known.h"
#include "common/galloping_search.h"
#include "common/helper_pool.h"
#include "common/log.h"
#include "common/thread_cpu_time.h"
#include "common/thread_name.h"
#include "controllers/action_plan.h"
#include "controllers/admission_recovery.h"
#include "controllers/annotations.h"
#include "controllers/bound_allocation.h"
#include "controllers/cluster_snapshot.h"
#include "controllers/conditions.h"
#include "controllers/engine_sync.h"
#include "controllers/first_status.h"
#include "controllers/gpu_indices.h"
#include "controllers/lone_pod.h"
#include "controllers/object_json.h"
#include "controllers/pending_status_schedule.h"
#include "controllers/pod_group_status.h"
#include "controllers/queue_status.h"
#include "controllers/resources.h"
#include "controllers/scheduling_inputs.h"
#include "controllers/training_job_plan.h"
#include "kube/event_recorder.h"
#include "kube/informer.h"
#include "kube/kube_client.h"
#include "kube/leader_elector.h"
#include "kube/object_cache.h"
#include "kube/work_queue.h"
#include "operator/informer_cluster_view.h"
#include "operator/operator_metrics.h"
#include "queueing/usage.h"
#include "state/admission_journal.h"
#include "state/job_accounting.h"
#include "state/state_database.h"
#include "state/usage_history.h"

namespace troupe::operator_runtime {

using Json = nlohmann::json;
using kube::ObjectPtr;
namespace res = kube::resources;
namespace ctl = controllers;

namespace {

constexpr const char* kFieldManager = "troupe-operator";
// How long a pod's event waits for its siblings' before its job and group are reconciled.
constexpr std::chrono::milliseconds kPodEventCoalescing{100};
// A waiting job's status.pending is rewritten at once when its reason changes, but when
// only its numbers move (the queue's allocation changes with every admission) at most this
// often: with thousands of jobs waiting, rewriting each one every cycle would take more of
// the API's write capacity than the bindings themselves.
constexpr std::int64_t kPendingRefreshSeconds = 10;
// At most this many waiting jobs a cycle are compared for the refresh (on top of those whose
// explanation changed): 2,000 of them cost about 30 ms of CPU.
constexpr std::size_t kPendingRefreshBudget = 2000;

constexpr const char* kJobPrefix = "TrainingJob:";
constexpr const char* kGroupPrefix = "PodGroup:";
const std::string kPreemptedByAnnotation(controllers::kPreemptedByAnnotation);

std::string defaultIdentity() {
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  return fmt::format("{}_{:08x}", host, std::random_device{}());
}

std::vector<std::string> labelIndex(const Json& object, std::string_view key) {
  auto v = ctl::label(object, key);
  if (v.empty()) return {};
  return {ctl::namespaceOf(object) + "/" + v};
}

// The RFC 7386 merge patch that turns `from` into `to`: keys `to` lacks become null (a
// merge patch of the new object alone would keep them), objects recurse, the rest replaces.
Json mergePatch(const Json& from, const Json& to) {
  if (!from.is_object() || !to.is_object()) return to;
  Json patch = Json::object();
  for (const auto& [k, v] : from.items())
    if (!to.contains(k)) patch[k] = nullptr;
  for (const auto& [k, v] : to.items()) {
    auto it = from.find(k);
    if (it == from.end()) {
      patch[k] = v;
    } else if (*it != v) {
      patch[k] = mergePatch(*it, v);
    }
  }
  return patch;
}

}  // namespace

// What a pod is assumed to be after our own write, until the cache shows it.
struct Assumed {
  std::string uid;
  std::string node;  // bound there
  std::string gpus;
  bool deleted = false;
  std::int64_t expires = 0;
  // The cache's version of the pod the last cycle assumed this over, and the assumed copy
  // it made. While the cache holds that same version, a cycle reuses the copy: the same
  // document reads as unchanged facts, where a new copy every cycle was read again.
  ctl::ObjectRef seen;
  ctl::ObjectRef made;
};

struct Operator::Runtime {
  Operator& op;
  kube::KubeClient& client;
  std::map<std::string, std::unique_ptr<kube::Informer>> informers;
  kube::WorkQueue queue{std::chrono::milliseconds(50), std::chrono::seconds(60)};
  std::unique_ptr<kube::LeaderElector> elector;
  kube::EventRecorder events;
  state::AdmissionJournal journal;
  state::UsageHistory usage_history;
  state::JobAccounting accounting;
  std::atomic<bool> schedule_requested{true};
  // The reconcile workers act only while this replica leads and has recovered.
  std::atomic<bool> acting{false};
  std::atomic<std::int64_t> event_counter{0};
  // The state store has one connection: one writer at a time (control thread, workers).
  std::mutex db_mu;
  state::StateDatabase& db;
  // Our own pod writes the caches have not shown yet; the workers delete pods too.
  std::mutex assumed_mu;
  std::map<std::string, Assumed> assumed;  // by "ns/pod"
  // Threads that carry the writes of a cycle or reconcile several at once (the bindings of
  // a cycle beside the reconcile workers' writes, as many as the client has connections).
  HelperPool helpers{kBindWidth + 2 * kWriteWidth, "op-write"};
  // Control-thread state.
  std::map<std::string, state::QueueUsage> usage;
  // Which waiting gangs' status.pending a cycle compares; a new engine names them all.
  ctl::PendingStatusSchedule pending_schedule{kPendingRefreshBudget};
  // The scheduling thread's, kept across cycles; a new leadership starts both afresh.
  ctl::SnapshotFacts facts;
  std::optional<ctl::EngineSync> engine;
  std::int64_t last_usage_advance = 0;
  std::int64_t last_mirror = 0;
  // Queues that cannot take jobs, as last logged: name -> reason and error.
  std::map<std::string, std::string> unusable_queues;
  // When the engine last said a cycle would have something new to decide (seconds).
  std::optional<std::int64_t> next_wakeup;

  Runtime(Operator& o, kube::KubeClient& c, state::StateDatabase& database)
      : op(o),
        client(c),
        events(c, kFieldManager),
        journal(database),
        usage_history(database),
        accounting(database),
        db(database) {}

  // Runs `body` holding the state store, in one transaction: its writes share one commit.
  template <typename Body>
  Status inTransaction(Body&& body) {
    std::lock_guard lock(db_mu);
    return db.transaction(std::forward<Body>(body));
  }

  kube::Informer& informer(const std::string& name) { return *informers.at(name); }
  // Admission's view of the caches (made in build(), when the informers exist).
  std::unique_ptr<InformerClusterView> cluster_view;
  std::int64_t now() const {
    return std::chrono::duration_cast<std::chrono::seconds>(op.time_.now().time_since_epoch())
        .count();
  }

  // ---- wiring ----
  void build() {
    auto add = [&](const std::string& name, const kube::ResourceType& type) {
      informers[name] = std::make_unique<kube::Informer>(client, type, "");
    };
    add("pods", res::kPods);
    add("nodes", res::kNodes);
    add("queues", res::kQueues);
    add("podgroups", res::kPodGroups);
    add("trainingjobs", res::kTrainingJobs);
    add("priorityclasses", res::kPriorityClasses);
    add("services", res::kServices);
    // Namespaces' labels decide which queues admit their gangs (queues' namespaceSelector),
    // here and in the admission webhook.
    add("namespaces", res::kNamespaces);
    cluster_view = std::make_unique<InformerClusterView>(informer("queues").cache(),
                                                         informer("namespaces").cache());
    informer("pods").addIndex("job",
                              [](const Json& p) { return labelIndex(p, api::kJobNameLabel); });
    informer("pods").addIndex("group", [](const Json& p) -> std::vector<std::string> {
      auto group = ctl::podGroupName(p);
      if (group.empty()) return {};
      return {ctl::namespaceOf(p) + "/" + group};
    });

    // A pod's event reconciles its job and group a moment later: a gang's pods are bound,
    // start and finish together, and one reconcile (one status write) then covers the
    // burst instead of one per member. The scheduling cycle is not delayed.
    // Adds and deletes always ask for a scheduling cycle; an update only when it changes
    // what the cycle reads (controllers/scheduling_inputs.h).
    auto onPod = [this](const ObjectPtr& p, bool schedule) {
      auto job = ctl::label(*p, api::kJobNameLabel);
      if (!job.empty())
        queue.addAfter(kJobPrefix + ctl::namespaceOf(*p) + "/" + job, kPodEventCoalescing);
      auto group = ctl::podGroupName(*p);
      if (!group.empty())
        queue.addAfter(kGroupPrefix + ctl::namespaceOf(*p) + "/" + group, kPodEventCoalescing);
      if (schedule) schedule_requested = true;
    };
    informer("pods").addHandlers({[onPod](const ObjectPtr& p) { onPod(p, true); },
                                  [onPod](const ObjectPtr& o, const ObjectPtr& n) {
                                    onPod(n, ctl::podUpdateMatters(*o, *n));
                                  },
                                  [onPod](const ObjectPtr& p) { onPod(p, true); }});
    auto onJob = [this](const ObjectPtr& j) { queue.add(kJobPrefix + ctl::keyOf(*j)); };
    // A new job's first reconcile (its PodGroup and pods) goes ahead of the status
    // bookkeeping of older jobs: it is what its user, and a reclaim, waits for.
    auto onNewJob = [this](const ObjectPtr& j) { queue.addFirst(kJobPrefix + ctl::keyOf(*j)); };
    informer("trainingjobs")
        .addHandlers(
            {onNewJob, [onJob](const ObjectPtr&, const ObjectPtr& n) { onJob(n); }, onJob});
    auto onGroup = [this](const ObjectPtr& g, bool schedule) {
      queue.add(kGroupPrefix + ctl::keyOf(*g));
      auto owner = ctl::controllerOf(*g);
      if (owner && owner->kind == api::kTrainingJobKind)
        queue.add(kJobPrefix + ctl::namespaceOf(*g) + "/" + owner->name);
      if (schedule) schedule_requested = true;
    };
    informer("podgroups")
        .addHandlers({[onGroup](const ObjectPtr& g) { onGroup(g, true); },
                      [onGroup](const ObjectPtr& o, const ObjectPtr& n) {
                        onGroup(n, ctl::podGroupUpdateMatters(*o, *n));
                      },
                      [onGroup](const ObjectPtr& g) { onGroup(g, true); }});
    auto onOther = [this](const ObjectPtr&) { schedule_requested = true; };
    informer("nodes").addHandlers({onOther,
                                   [this](const ObjectPtr& o, const ObjectPtr& n) {
                                     if (ctl::nodeUpdateMatters(*o, *n)) schedule_requested = true;
                                   },
                                   onOther});
    informer("queues").addHandlers({onOther,
                                    [this](const ObjectPtr& o, const ObjectPtr& n) {
                                      if (ctl::queueUpdateMatters(*o, *n))
                                        schedule_requested = true;
                                    },
                                    onOther});
    informer("priorityclasses")
        .addHandlers(
            {onOther, [onOther](const ObjectPtr&, const ObjectPtr& n) { onOther(n); }, onOther});
    informer("namespaces")
        .addHandlers({onOther,
                      [this](const ObjectPtr& o, const ObjectPtr& n) {
                        if (o->value(Json::json_pointer("/metadata/labels"), Json()) !=
                            n->value(Json::json_pointer("/metadata/labels"), Json()))
                          schedule_requested = true;
                      },
                      onOther});
    auto onService = [this](const ObjectPtr& s) {
      auto owner = ctl::controllerOf(*s);
      if (owner && owner->kind == api::kTrainingJobKind)
        queue.add(kJobPrefix + ctl::namespaceOf(*s) + "/" + owner->name);
    };
    informer("services")
        .addHandlers({onService,
                      [onService](const ObjectPtr&, const ObjectPtr& n) { onService(n); },
                      onService});
  }

  bool synced() const {
    for (const auto& [_, i] : informers)
      if (!i->hasSynced()) return false;
    return !informers.empty();
  }

  // ---- writes ----
  void recordEvent(const std::string& kind, const kube::ResourceType& type, const std::string& ns,
                   const std::string& name, const ctl::EventRecord& e) {
    auto obj = informer(kind).cache().get(ns + "/" + name);
    std::string uid = obj ? ctl::stringAt(*obj, "/metadata/uid") : "";
    auto ts = ctl::formatTimestamp(now());
    Json event{{"apiVersion", "v1"},
               {"kind", "Event"},
               {"metadata",
                {{"name", fmt::format("{}.{:x}{:04x}", name, now(), ++event_counter % 0xffff)},
                 {"namespace", ns}}},
               {"involvedObject",
                {{"apiVersion", type.apiVersion()},
                 {"kind", type.kind},
                 {"name", name},
                 {"namespace", ns},
                 {"uid", uid}}},
               {"reason", e.reason},
               {"message", e.message},
               {"type", e.type},
               {"count", 1},
               {"firstTimestamp", ts},
               {"lastTimestamp", ts},
               {"source", {{"component", "troupe-operator"}}},
               {"reportingComponent", "troupe-operator"}};
    events.record(std::move(event));
  }

  // Events about a gang go to its TrainingJob when it has one.
  void recordGangEvent(const ctl::EventRecord& e) {
    auto slash = e.gang.find('/');
    std::string ns = e.gang.substr(0, slash), name = e.gang.substr(slash + 1);
    auto pg = informer("podgroups").cache().get(e.gang);
    auto owner = pg ? ctl::controllerOf(*pg) : std::nullopt;
    if (owner && owner->kind == api::kTrainingJobKind) {
      recordEvent("trainingjobs", res::kTrainingJobs, ns, owner->name, e);
    } else if (owner && owner->kind == "Pod") {  // a lone pod's own group
      recordEvent("pods", res::kPods, ns, owner->name, e);
    } else {
      recordEvent("podgroups", res::kPodGroups, ns, name, e);
    }
  }

  bool deletePod(const ctl::PodDeletion& d) {
    kube::DeleteOptions options;
    if (!d.uid.empty()) options.precondition_uid = d.uid;
    auto r = client.remove({res::kPods, d.ns, d.pod, ""}, options);
    if (!r && !r.error().isNotFound() && !r.error().isConflict()) {
      log::warn("pod deletion failed",
                {{"pod", d.ns + "/" + d.pod}, {"error", r.error().describe()}});
      return false;
    }
    {
      std::lock_guard lock(assumed_mu);
      assumed[d.ns + "/" + d.pod] = Assumed{d.uid, "", "", true, now() + 60};
    }
    log::info("pod deleted", {{"pod", d.ns + "/" + d.pod}, {"gang", d.gang}, {"reason", d.reason}});
    return true;
  }

  // The gangs whose bindings must wait for a later cycle: some pod holding capacity they
  // take is still in the API (controllers/pods_in_the_way.h), terminating through its
  // grace period with its containers on the GPUs. One whose victims were deleted at once
  // (no grace period) binds in this cycle, as kube-scheduler would place a pod once its
  // victims' objects are gone.
  std::set<std::string> stillMakingRoom(
      const std::map<std::string, std::vector<ctl::PodRef>>& making_room) {
    std::vector<std::pair<const std::string*, const ctl::PodRef*>> pods;
    for (const auto& [preemptor, refs] : making_room)
      for (const auto& ref : refs) pods.emplace_back(&preemptor, &ref);
    std::vector<char> gone(pods.size(), 0);
    helpers.forEach(pods.size(), kWriteWidth, [&](std::size_t i) {
      const auto& ref = *pods[i].second;
      auto r = client.get({res::kPods, ref.ns, ref.pod, ""});
      gone[i] = r ? ctl::stringAt(*r, "/metadata/uid") != ref.uid : r.error().isNotFound();
    });
    std::set<std::string> waiting;
    for (const auto& [preemptor, refs] : making_room)
      if (refs.empty()) waiting.insert(preemptor);  // nothing seen to go yet: be safe
    for (std::size_t i = 0; i < pods.size(); ++i)
      if (!gone[i]) waiting.insert(*pods[i].first);
    return waiting;
  }

  // The Binding of one pod; any thread. One write per pod: kube-apiserver (and troupe serve)
  // copy the Binding's annotations onto the pod, so the GPU indices arrive with the node.
  bool postBinding(const state::PlannedBinding& b) {
    Json binding{{"apiVersion", "v1"},
                 {"kind", "Binding"},
                 {"metadata",
                  {{"name", b.pod},
                   {"namespace", b.ns},
                   {"annotations",
                    {{std::string(api::kGpuIndicesAnnotation), ctl::formatGpuIndices(b.gpus)}}}}},
                 {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", b.node}}}};
    auto r = client.createSubresource({res::kPods, b.ns, b.pod, "binding"}, binding);
    if (!r) {
      log::warn("binding failed",
                {{"pod", b.ns + "/" + b.pod}, {"node", b.node}, {"error", r.error().describe()}});
      return false;
    }
    return true;
  }

  // Control thread: what the caches will show once they catch up with a binding.
  void assumeBound(const state::PlannedBinding& b) {
    // The uid the cache holds, so a later pod of the same name is not taken for this one.
    std::string uid;
    if (auto cached = informer("pods").cache().get(b.ns + "/" + b.pod))
      uid = ctl::stringAt(*cached, "/metadata/uid");
    std::lock_guard lock(assumed_mu);
    assumed[b.ns + "/" + b.pod] =
        Assumed{uid, b.node, ctl::formatGpuIndices(b.gpus), false, now() + 60};
  }

  // Binds every pod of `bindings` at once; returns which were bound. Those bound are
  // assumed either way, so a caller can roll them back.
  std::vector<char> bindAll(const std::vector<state::PlannedBinding>& bindings) {
    std::vector<char> bound(bindings.size(), 0);
    helpers.forEach(bindings.size(), kWriteWidth,
                    [&](std::size_t i) { bound[i] = postBinding(bindings[i]) ? 1 : 0; });
    for (std::size_t i = 0; i < bindings.size(); ++i)
      if (bound[i]) assumeBound(bindings[i]);
    return bound;
  }

  static bool allOf(const std::vector<char>& flags) {
    return std::all_of(flags.begin(), flags.end(), [](char f) { return f != 0; });
  }

  // Writes the difference from `old_status` (as the cache holds it) to `status`.
  void patchStatus(const kube::ResourceType& type, const std::string& ns, const std::string& name,
                   const Json& old_status, const Json& status) {
    writeStatusPatch(type, ns, name, mergePatch(old_status, status));
  }

  void writeStatusPatch(const kube::ResourceType& type, const std::string& ns,
                        const std::string& name, const Json& patch) {
    auto r = client.patch({type, ns, name, "status"}, Json{{"status", patch}},
                          {kube::PatchType::Merge, kFieldManager, false, false});
    if (!r && !r.error().isNotFound())
      log::warn("status write failed", {{"kind", type.kind},
                                        {"object", ns.empty() ? name : ns + "/" + name},
                                        {"error", r.error().describe()}});
  }

  void patchGroupAnnotation(const std::string& gang, const std::string& key, const Json& value) {
    auto slash = gang.find('/');
    Json patch{{"metadata", {{"annotations", {{key, value}}}}}};
    auto r = client.patch({res::kPodGroups, gang.substr(0, slash), gang.substr(slash + 1), ""},
                          patch, {kube::PatchType::Merge, kFieldManager, false, false});
    if (!r && !r.error().isNotFound())
      log::warn("podgroup annotation failed", {{"gang", gang}, {"error", r.error().describe()}});
  }

  // The uid of a pod we bound and the caches do not show yet.
  std::optional<std::string> boundByUs(const std::string& key) {
    std::lock_guard lock(assumed_mu);
    auto it = assumed.find(key);
    if (it == assumed.end() || it->second.deleted) return std::nullopt;
    return it->second.uid;
  }

  enum class Admission { NotJournaled, RolledBack, Bound };

  // Carries out one cycle's gang admissions. Every record is journaled, in one transaction,
  // before the first binding of any gang; then the pods of every gang are bound at once, so
  // the server's group commits share their writes; a gang with a failed binding is rolled
  // back whole. The records stay open for the caller to close with the accounting.
  std::vector<Admission> bindGangs(const std::vector<const state::AdmissionRecord*>& records) {
    std::vector<Admission> out(records.size(), Admission::NotJournaled);
    if (records.empty()) return out;
    auto journaled = inTransaction([&]() -> Status {
      for (std::size_t i = 0; i < records.size(); ++i) {
        auto begun = journal.begin(*records[i]);
        if (begun) {
          out[i] = Admission::Bound;
        } else if (begun.error().code == ErrorCode::AlreadyExists) {
          log::error("gang already has an open admission; not admitted",
                     {{"gang", records[i]->gang}, {"error", begun.error().describe()}});
        } else {
          return begun;
        }
      }
      return {};
    });
    if (!journaled) {
      log::error("journal write failed; no gang admitted this cycle",
                 {{"gangs", records.size()}, {"error", journaled.error().describe()}});
      return std::vector<Admission>(records.size(), Admission::NotJournaled);
    }
    std::vector<std::pair<std::size_t, std::size_t>> pods;  // (record, binding)
    for (std::size_t i = 0; i < records.size(); ++i)
      if (out[i] == Admission::Bound)
        for (std::size_t j = 0; j < records[i]->bindings.size(); ++j) pods.emplace_back(i, j);
    std::vector<char> bound(pods.size(), 0);
    helpers.forEach(pods.size(), kBindWidth, [&](std::size_t k) {
      bound[k] = postBinding(records[pods[k].first]->bindings[pods[k].second]) ? 1 : 0;
    });
    for (std::size_t k = 0; k < pods.size(); ++k) {
      if (bound[k]) {
        assumeBound(records[pods[k].first]->bindings[pods[k].second]);
      } else {
        out[pods[k].first] = Admission::RolledBack;
      }
    }
    std::map<std::size_t, std::size_t> rolled_back;  // record -> pods unbound again
    for (std::size_t k = 0; k < pods.size(); ++k) {
      const auto i = pods[k].first;
      if (!bound[k] || out[i] != Admission::RolledBack) continue;
      const auto& b = records[i]->bindings[pods[k].second];
      deletePod({b.ns, b.pod, boundByUs(b.ns + "/" + b.pod).value_or(""), records[i]->gang,
                 "RolledBack"});
      ++rolled_back[i];
    }
    for (std::size_t i = 0; i < records.size(); ++i)
      if (out[i] == Admission::RolledBack)
        log::warn("gang admission rolled back",
                  {{"gang", records[i]->gang}, {"bound", rolled_back[i]}});
    return out;
  }

  // ---- leadership ----
  queueing::Policy enginePolicy() const {
    queueing::Policy policy;
    policy.topology_levels = op.options_.topology_levels;
    return policy;
  }

  void onStartedLeading() {
    log::info("leading: recovering from the journal and the API");
    facts = ctl::SnapshotFacts{};
    engine.emplace(enginePolicy());
    pending_schedule.clear();
    // The workers do not act before recovery ends; the lock says so to a reader as well.
    std::lock_guard db_lock(db_mu);
    // Usage: the newer of the local copy and the Queue annotation mirror.
    auto local = usage_history.load();
    usage = local ? *local : std::map<std::string, state::QueueUsage>{};
    for (const auto& q : informer("queues").cache().list()) {
      auto text = ctl::annotation(*q, state::kDecayedUsageAnnotation);
      if (text.empty()) continue;
      auto mirrored = state::decodeUsageAnnotation(text);
      if (!mirrored) continue;
      auto& mine = usage[ctl::nameOf(*q)];
      mine = state::newerOf(mine, *mirrored);
    }
    last_usage_advance = now();
    // Half-bound gangs: finish or roll back.
    auto open = journal.open();
    if (open && !open->empty()) {
      auto cluster = ctl::buildClusterSnapshot(gather(), {now(), {}});
      for (const auto& step : ctl::planRecovery(*open, cluster)) {
        if (step.finish) {
          bool ok = allOf(bindAll(step.remaining));
          if (!ok) {
            for (const auto& g : cluster.gangs.at(step.gang).pods)
              if (g.bound()) deletePod({g.ns(), g.name(), g.uid(), step.gang, "RolledBack"});
            for (const auto& b : step.remaining)
              if (auto uid = boundByUs(b.ns + "/" + b.pod))
                deletePod({b.ns, b.pod, *uid, step.gang, "RolledBack"});
          }
          log::info("recovered half-bound gang", {{"gang", step.gang}, {"finished", ok}});
        } else {
          for (const auto& d : step.deletions) deletePod(d);
          log::info("rolled back half-bound gang", {{"gang", step.gang}, {"reason", step.reason}});
        }
        (void)journal.complete(step.gang);
      }
    }
    for (const auto& key : informer("trainingjobs").cache().keys()) queue.add(kJobPrefix + key);
    for (const auto& key : informer("podgroups").cache().keys()) queue.add(kGroupPrefix + key);
    schedule_requested = true;
  }

  // ---- the caches, with our own writes assumed ----
  ctl::ApiObjects gather() {
    ctl::ApiObjects objects;
    objects.nodes = ctl::ObjectList(informer("nodes").cache().list());
    objects.queues = ctl::ObjectList(informer("queues").cache().list());
    objects.pod_groups = ctl::ObjectList(informer("podgroups").cache().list());
    objects.priority_classes = ctl::ObjectList(informer("priorityclasses").cache().list());
    objects.namespaces = ctl::ObjectList(informer("namespaces").cache().list());
    objects.pods = ctl::ObjectList(informer("pods").cache().list());
    std::lock_guard lock(assumed_mu);
    if (assumed.empty()) return objects;
    const auto t = now();
    // The cache lists pods in its key order, which is also the order of `assumed`: each
    // assumed pod is searched for past the last one found. Reading every pod's facts
    // instead cost a sixth of a cycle at 35,000 pods whenever one binding was still
    // assumed. The pods of a gang, bound together, sit together in key order, so the next
    // one is a few steps on: a galloping search finds it in a few comparisons, where a
    // binary search of the rest of the list made some 16 (3% of the operator's CPU while
    // gangs of 100 were bound).
    std::size_t lo = 0;
    const std::size_t n = objects.pods.size();
    for (auto it = assumed.begin(); it != assumed.end();) {
      // Indices, not the list's iterators: those are forward-only, so a search over them
      // would step through every pod.
      const std::size_t first = gallopingPartitionPoint(lo, n, [&](std::size_t i) {
        return kube::compareObjectKey(objects.pods[i], it->first) < 0;
      });
      if (first == n || kube::compareObjectKey(objects.pods[first], it->first) != 0) {
        it = assumed.erase(it);  // gone from the cache: nothing left to assume
        continue;
      }
      lo = first + 1;
      const Json& pod = objects.pods[first];
      Assumed& a = it->second;
      if (a.seen != objects.pods.ref(first)) {
        bool same = a.uid.empty() || a.uid == ctl::stringAt(pod, "/metadata/uid");
        bool caught_up = !same || !ctl::stringAt(pod, a.deleted ? "/metadata/deletionTimestamp"
                                                                : "/spec/nodeName")
                                       .empty();
        if (caught_up) {
          it = assumed.erase(it);
          continue;
        }
        Json changed = pod;  // the cache's object stays as the API gave it
        if (a.deleted) {
          changed["metadata"]["deletionTimestamp"] = ctl::formatTimestamp(t);
        } else {
          changed["spec"]["nodeName"] = a.node;
          changed["metadata"]["annotations"][std::string(api::kGpuIndicesAnnotation)] = a.gpus;
        }
        a.seen = objects.pods.ref(first);
        a.made = std::make_shared<const Json>(std::move(changed));
      }
      if (t > a.expires) {
        it = assumed.erase(it);
        continue;
      }
      objects.pods.replace(first, a.made);
      ++it;
    }
    return objects;
  }

  // ---- the scheduling cycle ----
  void scheduleCycle() {
    const auto started = std::chrono::steady_clock::now();
    // Milliseconds each step of the cycle took, for the debug log: wall time, and this
    // thread's CPU time, which a busy machine does not inflate.
    auto mark = started;
    auto cpu_mark = threadCpuMs();
    Json steps = Json::object(), cpu_steps = Json::object();
    auto step = [&](const char* name) {
      const auto at = std::chrono::steady_clock::now();
      const auto cpu_at = threadCpuMs();
      steps[name] = std::chrono::duration<double, std::milli>(at - mark).count();
      cpu_steps[name] = cpu_at - cpu_mark;
      mark = at;
      cpu_mark = cpu_at;
    };
    const auto t = now();
    const auto parsed_before = facts.pods.parsed();
    auto objects = gather();
    ctl::SnapshotOptions options{t, {}};
    for (const auto& [q, u] : usage) options.usage[q] = u.usage;
    options.facts = &facts;
    auto cluster = ctl::buildClusterSnapshot(objects, options);
    step("snapshot");
    if (!engine) engine.emplace(enginePolicy());
    const auto refused = engine->sync(cluster);
    step("sync");
    auto decisions = engine->engine().schedule(t);
    decisions.cycle = op.cycles_.load() + 1;
    next_wakeup = decisions.next_wakeup;
    auto plan = ctl::planActions(decisions, cluster, t);
    step("engine");

    // Preemptions first: victims are deleted; a preemptor binds in this cycle once they are
    // gone, or waits for a later one (stillMakingRoom).
    for (const auto& p : plan.preempted) {
      patchGroupAnnotation(p.gang, kPreemptedByAnnotation, p.preemptor);
      op.metrics_.add("troupe_preemptions_total",
                      {{"queue", cluster.gangs.count(p.gang) ? cluster.gangs.at(p.gang).queue : ""},
                       {"reason", p.reason}});
    }
    if (!plan.preempted.empty()) {
      auto s = inTransaction([&]() -> Status {
        for (const auto& p : plan.preempted)
          (void)accounting.stopped(p.gang, t, state::StopReason::Preempted);
        return {};
      });
      if (!s) log::warn("accounting write failed", {{"error", s.error().describe()}});
    }
    helpers.forEach(plan.deletions.size(), kWriteWidth,
                    [&](std::size_t i) { deletePod(plan.deletions[i]); });
    const auto waiting_preemptors = stillMakingRoom(plan.making_room);

    std::vector<const state::AdmissionRecord*> records;
    for (const auto& record : plan.bindings)
      if (!waiting_preemptors.contains(record.gang)) records.push_back(&record);
    step("preempt");
    const auto outcome = bindGangs(records);
    step("bind");
    std::map<std::string, std::int64_t> submitted_at;
    for (const auto& g : cluster.snapshot.pending) submitted_at[g.name] = g.submit_time;
    // The journal records close with the accounting they lead to, in one commit: after a
    // crash either both are there or recovery finds the records open and closes them.
    auto closed = inTransaction([&]() -> Status {
      for (std::size_t i = 0; i < records.size(); ++i) {
        const auto& record = *records[i];
        if (outcome[i] == Admission::NotJournaled) continue;
        if (auto s = journal.complete(record.gang); !s) return s;
        if (outcome[i] != Admission::Bound) continue;
        const auto& gang = cluster.gangs.at(record.gang);
        std::int64_t gpus = 0;
        for (const auto& b : record.bindings) gpus += static_cast<std::int64_t>(b.gpus.size());
        if (gang.state == ctl::GangState::Running) {
          (void)accounting.resized(record.gang, t, gpus + gang.bound_requests[queueing::kGpu]);
          continue;
        }
        auto submit = submitted_at.find(record.gang);
        (void)accounting.submitted(record.gang, record.queue,
                                   submit == submitted_at.end() ? t : submit->second);
        (void)accounting.started(record.gang, t, gpus);
      }
      return {};
    });
    if (!closed)
      log::error("journal close failed",
                 {{"gangs", records.size()}, {"error", closed.error().describe()}});
    for (std::size_t i = 0; i < records.size(); ++i) {
      const auto& record = *records[i];
      if (outcome[i] != Admission::Bound) continue;
      if (cluster.gangs.at(record.gang).state == ctl::GangState::Running) continue;  // grown
      auto pg = informer("podgroups").cache().get(record.gang);
      if (pg && !ctl::annotation(*pg, kPreemptedByAnnotation).empty())
        patchGroupAnnotation(record.gang, kPreemptedByAnnotation, nullptr);
      auto submit = submitted_at.find(record.gang);
      const auto waited = submit == submitted_at.end() ? 0 : t - submit->second;
      op.metrics_.add("troupe_admissions_total", {{"queue", record.queue}});
      op.metrics_.observe("troupe_submission_to_admission_seconds", {{"queue", record.queue}},
                          static_cast<double>(std::max<std::int64_t>(0, waited)));
      log::info("gang admitted",
                {{"gang", record.gang}, {"queue", record.queue}, {"pods", record.bindings.size()}});
    }
    step("journal");
    for (const auto& e : plan.events) recordGangEvent(e);
    step("events");
    for (const auto& s : plan.skipped)
      log::debug("decision skipped", {{"gang", s.key}, {"why", s.error.message}});
    for (const auto& p : refused)
      log::debug("object refused by the engine",
                 {{"kind", p.kind}, {"object", p.key}, {"error", p.error.describe()}});

    publishPending(engine->engine(), decisions, cluster, t);
    step("pending");
    // Queues hold what their pods hold, terminating ones included, not what the engine
    // assumed of its decisions.
    std::vector<const state::AdmissionRecord*> bound;
    for (std::size_t i = 0; i < records.size(); ++i)
      if (outcome[i] == Admission::Bound) bound.push_back(records[i]);
    const auto allocated = ctl::boundAllocation(cluster, bound);
    publishQueues(objects, engine->engine(), cluster, allocated, t);
    advanceUsage(engine->engine(), cluster, allocated, t);
    step("queues");

    op.cycles_ += 1;
    log::debug("scheduling cycle", {{"cycle", decisions.cycle},
                                    {"pods", objects.pods.size()},
                                    {"gangs", cluster.gangs.size()},
                                    {"pending", cluster.snapshot.pending.size()},
                                    {"admitted", records.size()},
                                    {"deleted", plan.deletions.size()},
                                    {"pods_parsed", facts.pods.parsed() - parsed_before},
                                    {"engine_sync",
                                     {{"reloaded", engine->lastSync().reloaded},
                                      {"queues", engine->lastSync().queues},
                                      {"nodes", engine->lastSync().nodes},
                                      {"gangs_removed", engine->lastSync().gangs_removed},
                                      {"gangs_added", engine->lastSync().gangs_added},
                                      {"gangs_unasked", engine->lastSync().gangs_unasked}}},
                                    {"ms", steps},
                                    {"cpu_ms", cpu_steps}});
    op.metrics_.observe(
        "troupe_scheduling_cycle_duration_seconds", {},
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    ctl::recycle(std::move(cluster), facts);
  }

  // status.pending of each waiting TrainingJob, or of the PodGroup itself when plain pods
  // form the gang: the engine's explanation with the numbers. Compared for the gangs whose
  // explanation this cycle changed and for those due a refresh (PendingStatusSchedule).
  void publishPending(const queueing::Engine& engine, const queueing::Decisions& decisions,
                      const ctl::ClusterSnapshot& cluster, std::int64_t t) {
    struct Write {
      const kube::ResourceType* type;
      ObjectPtr target;
      Json current;
      Json pending;
    };
    std::vector<Write> writes;
    for (auto& due : pending_schedule.take(decisions.explained, t)) {
      // A gang no longer waiting is not put back on the schedule.
      auto gang = cluster.gangs.find(due.gang);
      if (gang == cluster.gangs.end() || gang->second.state != ctl::GangState::Pending) continue;
      auto explanation = engine.explanation(due.gang);
      if (!explanation) continue;
      // From here on the gang waits: whatever happens, compare it again in a while.
      std::optional<std::int64_t> written_at = due.written_at;
      std::int64_t next = t + kPendingRefreshSeconds;
      auto pg = informer("podgroups").cache().get(due.gang);
      if (!pg) {
        pending_schedule.checked(due.gang, written_at, next);
        continue;
      }
      auto owner = ctl::controllerOf(*pg);
      const auto& e = *explanation;
      auto amount = [&](std::int64_t v) {
        Json list = Json::object();
        if (!e.dominant_resource.empty() && v < queueing::ResourceVector::kUnlimited)
          list[e.dominant_resource] = std::to_string(v);
        return list;
      };
      Json pending{{"reason", queueing::pendingReasonName(e.reason)},
                   {"message", queueing::describe(e)},
                   {"queue", e.queue},
                   {"request", ctl::toResourceList(e.request, cluster.names)},
                   {"guaranteed", amount(e.queue_guaranteed)},
                   {"allocated", amount(e.queue_allocated)},
                   {"limit", amount(e.queue_limit)},
                   {"fairShare", amount(e.queue_fair_share)}};
      // No leaf queue of that name for the engine: say why when the queue exists.
      if (e.reason == queueing::PendingReason::QueueNotFound)
        if (auto why = cluster.admissibility->whyNot(e.queue, ctl::namespaceOf(*pg)))
          pending = inadmissiblePending(e.queue, *why);
      auto [type, target] = pendingTarget(pg);
      if (target) {
        Json current = target->value(Json::json_pointer("/status/pending"), Json());
        const bool same_reason = current.is_object() &&
                                 current.value("reason", "") == pending.value("reason", "") &&
                                 current.value("queue", "") == pending.value("queue", "");
        if (current == pending) {
          // Nothing to write.
        } else if (same_reason && written_at && t - *written_at < kPendingRefreshSeconds) {
          // Same reason, other numbers: refreshed now and then, not every cycle.
          next = *written_at + kPendingRefreshSeconds;
        } else {
          written_at = t;
          writes.push_back({type, target, std::move(current), std::move(pending)});
        }
      }
      pending_schedule.checked(due.gang, written_at, next);
    }
    // Gangs left out of the engine because they may not use their queue: compared every
    // cycle (there are few, and their reason comes from no engine explanation).
    for (const auto& [key, why] : cluster.inadmissible) {
      auto gang = cluster.gangs.find(key);
      auto pg = informer("podgroups").cache().get(key);
      if (gang == cluster.gangs.end() || !pg) continue;
      auto [type, target] = pendingTarget(pg);
      if (!target) continue;
      Json pending = inadmissiblePending(gang->second.queue, why);
      Json current = target->value(Json::json_pointer("/status/pending"), Json());
      if (current != pending)
        writes.push_back({type, target, std::move(current), std::move(pending)});
    }
    helpers.forEach(writes.size(), kWriteWidth, [&](std::size_t i) {
      const auto& w = writes[i];
      patchStatus(*w.type, ctl::namespaceOf(*w.target), ctl::nameOf(*w.target),
                  Json{{"pending", w.current}}, Json{{"pending", w.pending}});
    });
  }

  // status.pending of a gang that may not use its queue (controllers/gang_admissibility.h).
  static Json inadmissiblePending(const std::string& queue, const std::string& why) {
    return Json{{"reason", ctl::kPendingInadmissible}, {"message", why}, {"queue", queue}};
  }

  // Where a gang's status.pending goes: its TrainingJob, or the group of plain pods.
  std::pair<const kube::ResourceType*, ObjectPtr> pendingTarget(const ObjectPtr& pg) {
    auto owner = ctl::controllerOf(*pg);
    if (owner && owner->kind == api::kTrainingJobKind)
      return {&res::kTrainingJobs,
              informer("trainingjobs").cache().get(ctl::namespaceOf(*pg) + "/" + owner->name)};
    return {&res::kPodGroups, pg};
  }

  void publishQueues(const ctl::ApiObjects& objects, const queueing::Engine& engine,
                     const ctl::ClusterSnapshot& cluster,
                     const std::map<std::string, queueing::ResourceVector>& allocated,
                     std::int64_t t) {
    reportUnusableQueues(cluster);
    std::map<std::string, ctl::QueueCounts> counts;
    std::map<std::string, queueing::ResourceVector> pending_requests;
    for (const auto& [key, gang] : cluster.gangs) {
      if (gang.state == ctl::GangState::Pending) counts[gang.queue].pending += 1;
      if (gang.state == ctl::GangState::Running) counts[gang.queue].running += 1;
    }
    for (const auto& g : cluster.snapshot.pending) {
      auto gang = cluster.gangs.find(g.name);
      if (gang == cluster.gangs.end() || gang->second.state != ctl::GangState::Pending) continue;
      for (const auto& ps : g.pod_sets)
        pending_requests[gang->second.queue] += ps.shape->requests * ps.min_count;
    }
    struct StatusWrite {
      std::string queue;
      Json from, to;
    };
    std::vector<StatusWrite> status_writes;
    std::map<std::string, const queueing::QueueSpec*> specs;
    for (const auto& spec : cluster.snapshot.queues) specs[spec.name] = &spec;
    op.metrics_.clear("troupe_queue_guaranteed");
    op.metrics_.clear("troupe_queue_fair_share");
    op.metrics_.clear("troupe_queue_allocated");
    op.metrics_.clear("troupe_queue_pending");
    for (const auto& q : objects.queues) {
      const auto name = ctl::nameOf(q);
      auto computed = engine.queueStatus(name);
      if (auto it = allocated.find(name); computed && it != allocated.end())
        computed->allocated = it->second;
      const auto* problem = cluster.admissibility->forest().problem(name);
      auto status = ctl::renderQueueStatus(q, computed, cluster.names, counts[name], problem, t);
      Json old_status = q.value("status", Json::object());
      if (old_status != status)
        status_writes.push_back({name, std::move(old_status), std::move(status)});
      if (auto it = specs.find(name); it != specs.end()) {
        const auto& spec = *it->second;
        for (std::size_t slot = 0; slot < cluster.names.size(); ++slot) {
          MetricLabels l{{"queue", name}, {"resource", cluster.names.name(slot)}};
          op.metrics_.set("troupe_queue_guaranteed", l, static_cast<double>(spec.guaranteed[slot]));
          if (computed) {
            op.metrics_.set("troupe_queue_fair_share", l,
                            static_cast<double>(computed->fair_share[slot]));
            op.metrics_.set("troupe_queue_allocated", l,
                            static_cast<double>(computed->allocated[slot]));
          }
          op.metrics_.set("troupe_queue_pending", l,
                          static_cast<double>(pending_requests[name][slot]));
        }
      }
    }
    helpers.forEach(status_writes.size(), kWriteWidth, [&](std::size_t i) {
      const auto& w = status_writes[i];
      patchStatus(res::kQueues, "", w.queue, w.from, w.to);
    });
  }

  // A queue that cannot take jobs is logged once at warn, with why; again when that changes,
  // and at info when it takes jobs again.
  void reportUnusableQueues(const ctl::ClusterSnapshot& cluster) {
    const auto& problems = cluster.admissibility->forest().problems();
    for (const auto& [name, problem] : problems) {
      std::string why = problem.reason + ": " + problem.error.describe();
      auto [it, added] = unusable_queues.try_emplace(name, why);
      if (!added && it->second == why) continue;
      it->second = why;
      log::warn("queue cannot take jobs; its jobs wait as Inadmissible",
                {{"queue", name}, {"reason", problem.reason}, {"error", problem.error.describe()}});
    }
    for (auto it = unusable_queues.begin(); it != unusable_queues.end();) {
      if (problems.contains(it->first)) {
        ++it;
        continue;
      }
      log::info("queue takes jobs again", {{"queue", it->first}});
      it = unusable_queues.erase(it);
    }
  }

  void advanceUsage(const queueing::Engine& engine, const ctl::ClusterSnapshot& cluster,
                    const std::map<std::string, queueing::ResourceVector>& allocated,
                    std::int64_t t) {
    const auto elapsed = t - last_usage_advance;
    if (elapsed <= 0) return;
    last_usage_advance = t;
    queueing::Policy policy;
    std::vector<std::string> changed;
    for (const auto& spec : cluster.snapshot.queues) {
      auto computed = engine.queueStatus(spec.name);
      if (!computed) continue;
      if (auto it = allocated.find(spec.name); it != allocated.end())
        computed->allocated = it->second;
      auto& u = usage[spec.name];
      queueing::ResourceVector current;
      for (const auto& [r, v] : u.usage) {
        for (std::size_t slot = 0; slot < cluster.names.size(); ++slot)
          if (cluster.names.name(slot) == r) current[slot] = v;
      }
      auto next = queueing::advanceUsage(current, computed->allocated, elapsed,
                                         policy.usage_half_life_seconds);
      u.usage.clear();
      for (std::size_t slot = 0; slot < cluster.names.size(); ++slot)
        if (next[slot] != 0) u.usage[cluster.names.name(slot)] = next[slot];
      u.updated_at = t;
      changed.push_back(spec.name);
    }
    auto saved = inTransaction([&]() -> Status {
      for (const auto& q : changed)
        if (auto s = usage_history.save(q, usage[q]); !s) return s;
      return {};
    });
    if (!saved) log::warn("usage history write failed", {{"error", saved.error().describe()}});
    if (t - last_mirror >= op.options_.usage_mirror_interval.count()) {
      // The interval counts from the first mirror with a queue to write, so a new leader's
      // first usage reaches the Queues at once rather than an interval later.
      for (const auto& [q, u] : usage) {
        if (!informer("queues").cache().get(q)) continue;
        last_mirror = t;
        Json patch{{"metadata",
                    {{"annotations",
                      {{state::kDecayedUsageAnnotation, state::encodeUsageAnnotation(u)}}}}}};
        auto r = client.patch({res::kQueues, "", q, ""}, patch,
                              {kube::PatchType::Merge, kFieldManager, false, false});
        if (!r) log::debug("usage mirror failed", {{"queue", q}, {"error", r.error().describe()}});
      }
    }
  }

  // ---- reconcilers ----
  void reconcileJob(const std::string& key) {
    auto job = informer("trainingjobs").cache().get(key);
    if (!job) return;
    ctl::TrainingJobInputs in;
    in.job = *job;
    in.now = now();
    if (auto pg = informer("podgroups").cache().get(key)) in.pod_group = *pg;
    in.service_exists = informer("services").cache().get(key) != nullptr;
    in.pods = ctl::ObjectList(informer("pods").cache().byIndex("job", key));
    auto plan = ctl::planTrainingJob(in);
    const auto ns = ctl::namespaceOf(*job);
    // The job's status, with status.pending left to the scheduler loop: only its removal
    // is ours to write.
    auto writeJobStatus = [&] {
      Json old_status = job->value("status", Json::object());
      Json status = plan.status;
      const bool had_pending = old_status.contains("pending");
      const bool keeps_pending = status.contains("pending");
      old_status.erase("pending");
      status.erase("pending");
      Json patch = mergePatch(old_status, status);
      if (had_pending && !keeps_pending) patch["pending"] = nullptr;
      writeStatusPatch(res::kTrainingJobs, ns, ctl::nameOf(*job), patch);
    };
    // The job's PodGroup, Service and pods are written together, and with them its status
    // unless pods must go first: each write waits for its commit, and a new job's reconcile
    // would otherwise wait for two in turn. Should a create fail, the status written is
    // still the job's and the retry creates what is missing.
    const bool status_with_creates = plan.status_changed && plan.deletions.empty();
    const std::size_t writes = plan.create.size() + (status_with_creates ? 1 : 0);
    std::atomic<bool> create_failed{false};
    helpers.forEach(writes, kWriteWidth, [&](std::size_t i) {
      if (i == plan.create.size()) return writeJobStatus();
      const Json& object = plan.create[i];
      const auto kind = object.value("kind", "");
      const auto& type = kind == "Pod"       ? res::kPods
                         : kind == "Service" ? res::kServices
                                             : res::kPodGroups;
      auto r = client.create(type, ns, object, {kFieldManager, false});
      if (!r && !r.error().isAlreadyExists()) {
        log::warn("create failed", {{"job", key}, {"kind", kind}, {"error", r.error().describe()}});
        create_failed = true;
      }
    });
    if (create_failed) {
      queue.addRateLimited(kJobPrefix + key);
      if (!status_with_creates) return;
    }
    for (const auto& d : plan.deletions) deletePod(d);
    const auto old_phase = ctl::stringAt(*job, "/status/phase");
    const auto new_phase = plan.status.value("phase", "");
    if (plan.status_changed && !status_with_creates) writeJobStatus();
    if (old_phase != new_phase) onJobPhase(key, *job, old_phase, new_phase, plan);
    for (const auto& e : plan.events)
      recordEvent("trainingjobs", res::kTrainingJobs, ns, ctl::nameOf(*job), e);
    if (plan.delete_job) {
      auto r = client.remove(
          {res::kTrainingJobs, ns, ctl::nameOf(*job), ""},
          kube::DeleteOptions{"Background", std::nullopt, std::nullopt, std::nullopt, false});
      if (!r && !r.error().isNotFound())
        log::warn("ttl delete failed", {{"job", key}, {"error", r.error().describe()}});
      (void)inTransaction([&] { return accounting.forget(key); });
    }
    if (plan.requeue_after)
      queue.addAfter(kJobPrefix + key, std::chrono::seconds(*plan.requeue_after));
    if (!plan.deletions.empty() || !plan.create.empty()) schedule_requested = true;
  }

  void onJobPhase(const std::string& key, const Json& job, const std::string& from,
                  const std::string& to, const ctl::TrainingJobPlan& plan) {
    const auto t = now();
    const auto queue_name = ctl::stringAt(job, "/spec/queue");
    log::info("job phase", {{"job", key}, {"from", from}, {"to", to}});
    auto stopped = [&](state::StopReason reason) {
      (void)inTransaction([&] { return accounting.stopped(key, t, reason); });
    };
    if (to == "Running") {
      auto created =
          ctl::parseTimestamp(ctl::stringAt(job, "/metadata/creationTimestamp")).value_or(t);
      op.metrics_.observe("troupe_submission_to_running_seconds", {{"queue", queue_name}},
                          static_cast<double>(std::max<std::int64_t>(0, t - created)));
    }
    if (to == "Succeeded" || to == "Failed") stopped(state::StopReason::Finished);
    if (to == "Suspended" && from != "Suspended") stopped(state::StopReason::Suspended);
    if (plan.status.value("restarts", 0) > job.value(Json::json_pointer("/status/restarts"), 0)) {
      stopped(state::StopReason::Restarted);
      op.metrics_.add("troupe_gang_restarts_total", {{"queue", queue_name}});
    }
  }

  // A lone pod's own PodGroup (controllers/lone_pod.h), made once the pod is seen; a pod
  // that names no queue gets a Warning event that says so instead.
  void makeLonePodGroup(const std::string& key) {
    const auto ns = key.substr(0, key.find('/'));
    for (const auto& pod : informer("pods").cache().byIndex("group", key)) {
      const auto phase = ctl::stringAt(*pod, "/status/phase");
      if (!ctl::label(*pod, api::kPodGroupLabel).empty() || ctl::isDeleting(*pod) ||
          phase == "Succeeded" || phase == "Failed")
        continue;
      auto group = ctl::lonePodGroup(*pod);
      if (!group) {
        recordEvent("pods", res::kPods, ns, ctl::nameOf(*pod),
                    {key, "Warning", "NoQueue", group.error().describe()});
        continue;
      }
      auto r = client.create(res::kPodGroups, ns, *group, {kFieldManager, false});
      if (!r && !r.error().isAlreadyExists()) {
        log::warn(
            "create failed",
            {{"pod", ctl::keyOf(*pod)}, {"kind", "PodGroup"}, {"error", r.error().describe()}});
        queue.addRateLimited(kGroupPrefix + key);
      }
    }
  }

  void reconcileGroup(const std::string& key) {
    auto pg = informer("podgroups").cache().get(key);
    if (!pg) return makeLonePodGroup(key);
    // Shared with the cache: a gang of hundreds of pods is reconciled on each member's
    // event, and copying every member each time made this quadratic in the gang's size.
    const ctl::ObjectList pods(informer("pods").cache().byIndex("group", key));
    auto status = ctl::computePodGroupStatus(*pg, pods, now());
    auto preempted_by = ctl::annotation(*pg, kPreemptedByAnnotation);
    if (!preempted_by.empty()) {
      ctl::setCondition(status, "Preempted", true, "Preempted", "Preempted by " + preempted_by,
                        now());
    } else if (ctl::findCondition(status, "Preempted")) {
      ctl::setCondition(status, "Preempted", false, "Admitted", "", now());
    }
    // status.pending belongs to the scheduler loop while the group waits; once the group
    // is placed (or over), it goes.
    Json old_status = pg->value("status", Json::object());
    if (old_status.contains("pending") && status.value("phase", "") == "Pending")
      status["pending"] = old_status["pending"];
    if (old_status != status)
      patchStatus(res::kPodGroups, ctl::namespaceOf(*pg), ctl::nameOf(*pg), old_status, status);
    if (status.value("phase", "") == "Pending" && pg->contains("spec") &&
        (*pg)["spec"].contains("scheduleTimeoutSeconds"))
      queue.addAfter(kGroupPrefix + key, std::chrono::seconds(5));
    // A new group whose first status waits (controllers/first_status.h) is looked at again
    // when it is due, in case nothing else happens to it by then.
    if (status.value("phase", "").empty())
      if (auto wait = ctl::firstStatusWait(*pg, now()))
        queue.addAfter(kGroupPrefix + key, std::chrono::seconds(*wait));
  }

  void process(const std::string& item) {
    if (item.rfind(kJobPrefix, 0) == 0) {
      reconcileJob(item.substr(std::strlen(kJobPrefix)));
    } else if (item.rfind(kGroupPrefix, 0) == 0) {
      reconcileGroup(item.substr(std::strlen(kGroupPrefix)));
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
  defineOperatorMetrics(metrics_);
  metrics_.set("troupe_leader", {}, 0);
  metrics_.set("troupe_caches_synced", {}, 0);
  runtime_ = std::make_unique<Runtime>(*this, client_, *db_);
  runtime_->build();
}

Operator::~Operator() { stop(); }

bool Operator::synced() const { return runtime_->synced(); }
const admission::ClusterView& Operator::clusterView() const { return *runtime_->cluster_view; }
bool Operator::leading() const { return leading_.load(); }

void Operator::start() {
  std::lock_guard lock(lifecycle_mu_);
  if (started_) return;
  started_ = true;
  for (auto& [_, informer] : runtime_->informers) informer->start();
  if (options_.leader_elect) {
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
    runtime_->elector = std::move(*elector);
    elector_thread_ = std::jthread([this](std::stop_token stop) {
      nameThisThread("op-elector");
      // Campaign only once the caches are synced: a replica that cannot act must not lead.
      while (!stop.stop_requested() && !synced())
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (!stop.stop_requested()) runtime_->elector->run(stop);
    });
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

void Operator::stop() {
  std::lock_guard lock(lifecycle_mu_);
  if (!started_) return;
  started_ = false;
  control_thread_.request_stop();
  for (auto& w : workers_) w.request_stop();
  runtime_->queue.shutDown();
  if (control_thread_.joinable()) control_thread_.join();
  workers_.clear();  // joins: each finishes the reconcile in hand
  runtime_->events.stop();
  elector_thread_.request_stop();
  if (elector_thread_.joinable()) elector_thread_.join();
  for (auto& [_, informer] : runtime_->informers) informer->stop();
  leading_ = false;
  log::info("operator stopped");
}

void Operator::controlLoop(std::stop_token stop) {
  bool was_leading = false;
  auto last_cycle = std::chrono::steady_clock::time_point{};
  while (!stop.stop_requested()) {
    const bool synced_now = synced();
    metrics_.set("troupe_caches_synced", {}, synced_now ? 1 : 0);
    if (!leading_ || !synced_now) {
      was_leading = false;
      runtime_->acting = false;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    if (!was_leading) {
      runtime_->onStartedLeading();
      was_leading = true;
      runtime_->acting = true;
    }
    const auto since = std::chrono::steady_clock::now() - last_cycle;
    // The engine's own next moment (a starving deadline, a runtime estimate ending) brings
    // the timer forward.
    const bool wakeup_due = runtime_->next_wakeup && runtime_->now() >= *runtime_->next_wakeup;
    if (((runtime_->schedule_requested || wakeup_due) && since >= options_.min_cycle_gap) ||
        since >= options_.cycle_interval) {
      runtime_->schedule_requested = false;
      // Cycles are spaced from start to start: a long cycle is not followed by a full gap
      // of idleness while work waits.
      last_cycle = std::chrono::steady_clock::now();
      runtime_->scheduleCycle();
      continue;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  runtime_->acting = false;
}

// Reconciles TrainingJobs and PodGroups from the work queue; several run at once, never
// two on one key (the work queue's rule), each level-triggered on what the caches hold.
void Operator::reconcileLoop(std::stop_token stop) {
  while (!stop.stop_requested() && !runtime_->queue.shuttingDown()) {
    if (!runtime_->acting) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    auto item = runtime_->queue.getFor(std::chrono::milliseconds(100));
    if (!item) continue;
    runtime_->process(*item);
    runtime_->queue.done(*item);
    runtime_->queue.forget(*item);
  }
}

}  // namespace troupe::operator_runtime
