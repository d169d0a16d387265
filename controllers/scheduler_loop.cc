#include "controllers/scheduler_loop.h"

#include <algorithm>
#include <set>

#include "common/helper_pool.h"
#include "common/log.h"
#include "controllers/admission_accounting.h"
#include "controllers/annotations.h"
#include "controllers/bound_allocation.h"
#include "controllers/cluster_writer.h"
#include "controllers/cycle_timer.h"
#include "controllers/event_writer.h"
#include "controllers/informer_caches.h"
#include "controllers/journal_recovery.h"
#include "controllers/object_json.h"
#include "kube/kube_client.h"
#include "state/state_store.h"

namespace troupe::controllers {
namespace {

const std::string kPreemptedBy(kPreemptedByAnnotation);

queueing::Policy enginePolicy(const SchedulerLoopOptions& options) {
  queueing::Policy policy;
  policy.topology_levels = options.topology_levels;
  return policy;
}

// The gangs whose bindings must wait for a later cycle: some pod holding capacity they
// take is still in the API (controllers/pods_in_the_way.h), terminating through its
// grace period with its containers on the GPUs. One whose victims were deleted at once
// (no grace period) binds in this cycle, as kube-scheduler would place a pod once its
// victims' objects are gone.
std::set<std::string> stillMakingRoom(
    ClusterWriter& writer, const std::map<std::string, std::vector<PodRef>>& making_room) {
  std::vector<std::pair<const std::string*, const PodRef*>> pods;
  for (const auto& [preemptor, refs] : making_room)
    for (const auto& ref : refs) pods.emplace_back(&preemptor, &ref);
  std::vector<char> gone(pods.size(), 0);
  writer.helpers().forEach(pods.size(), kWriteWidth, [&](std::size_t i) {
    const auto& ref = *pods[i].second;
    auto r = writer.client().get({kube::resources::kPods, ref.ns, ref.pod, ""});
    gone[i] = r ? stringAt(*r, "/metadata/uid") != ref.uid : r.error().isNotFound();
  });
  std::set<std::string> waiting;
  for (const auto& [preemptor, refs] : making_room)
    if (refs.empty()) waiting.insert(preemptor);  // nothing seen to go yet: be safe
  for (std::size_t i = 0; i < pods.size(); ++i)
    if (!gone[i]) waiting.insert(*pods[i].first);
  return waiting;
}

// The admissions of `records` that bound their gang whole.
std::vector<const state::AdmissionRecord*> boundWhole(
    const std::vector<const state::AdmissionRecord*>& records,
    const std::vector<AdmissionOutcome>& outcomes) {
  std::vector<const state::AdmissionRecord*> out;
  for (std::size_t i = 0; i < records.size(); ++i)
    if (outcomes[i] == AdmissionOutcome::Bound) out.push_back(records[i]);
  return out;
}

// When each pending gang was submitted, by key.
std::map<std::string, std::int64_t> submitTimes(const ClusterSnapshot& cluster) {
  std::map<std::string, std::int64_t> out;
  for (const auto& g : cluster.snapshot.pending) out[g.name] = g.submit_time;
  return out;
}

}  // namespace

SchedulerLoop::SchedulerLoop(InformerCaches& caches, ClusterWriter& writer, EventWriter& events,
                             state::StateStore& state, MetricsRegistry& metrics,
                             const TimeSource& time, SchedulerLoopOptions options)
    : caches_(caches),
      writer_(writer),
      events_(events),
      state_(state),
      metrics_(metrics),
      time_(time),
      options_(std::move(options)),
      planner_(enginePolicy(options_)),
      pending_(caches, writer),
      queues_(writer, metrics),
      usage_(state, writer, options_.usage_mirror_interval) {}

void SchedulerLoop::startLeading() {
  log::info("leading: recovering from the journal and the API");
  planner_.reset();
  pending_.clear();
  journal_left_open_ = false;
  // The reconcile workers do not act before recovery ends; holding the store says so to a
  // reader as well.
  auto held = state_.hold();
  usage_.load(state_.usageHistory(), ObjectList(caches_.queues().cache().list()), now());
  // Half-bound gangs: finish or roll back.
  journal_left_open_ = !recoverAdmissions(state_.journal(), writer_, [this] {
    return buildClusterSnapshot(gather(), {now(), {}});
  });
}

void SchedulerLoop::runCycle() {
  CycleTimer timer;
  const auto t = now();
  const auto parsed_before = planner_.facts().pods.parsed();
  if (journal_left_open_) recoverJournal();
  // 1. gather
  const auto objects = gather();
  // 2-5. snapshot, sync, schedule, plan
  auto cycle = planner_.plan(objects, {t, usage_.byQueue()}, cycles_.load() + 1, timer);
  next_wakeup_ = cycle.decisions.next_wakeup;
  // 6. preempt
  const auto records = preempt(cycle, t);
  timer.step("preempt");
  // 7. bind
  const auto outcomes = admitGangs(records, state_, writer_);
  timer.step("bind");
  // 8. journal and accounting
  closeJournal(cycle, records, outcomes, t);
  timer.step("journal");
  // 9. events
  recordEvents(cycle.plan.events, records, outcomes);
  timer.step("events");
  // 10. pending status
  const auto& engine = planner_.engine().engine();
  pending_.write(engine, cycle.decisions, cycle.cluster, t);
  timer.step("pending");
  // 11. queue status and 12. usage, from what the pods hold (terminating ones included),
  // not from what the engine assumed of its decisions.
  const auto allocated = boundAllocation(cycle.cluster, boundWhole(records, outcomes));
  queues_.reconcile(objects.queues, engine, cycle.cluster, allocated, t);
  usage_.advance(engine, cycle.cluster, allocated, objects.queues, t);
  timer.step("queues");

  cycles_ += 1;
  logCycle(cycle, objects, records.size(), planner_.facts().pods.parsed() - parsed_before, timer);
  metrics_.observe("troupe_scheduling_cycle_duration_seconds", {}, timer.elapsedSeconds());
  planner_.recycle(std::move(cycle.cluster));
}

void SchedulerLoop::logCycle(const PlannedCycle& cycle, const ApiObjects& objects,
                             std::size_t admitted, std::uint64_t pods_parsed,
                             const CycleTimer& timer) const {
  for (const auto& s : cycle.plan.skipped)
    log::debug("decision skipped", {{"gang", s.key}, {"why", s.error.message}});
  for (const auto& p : cycle.refused)
    log::debug("object refused by the engine",
               {{"kind", p.kind}, {"object", p.key}, {"error", p.error.describe()}});
  const auto& sync = planner_.lastSync();
  log::debug("scheduling cycle", {{"cycle", cycle.decisions.cycle},
                                  {"pods", objects.pods.size()},
                                  {"gangs", cycle.cluster.gangs.size()},
                                  {"pending", cycle.cluster.snapshot.pending.size()},
                                  {"admitted", admitted},
                                  {"deleted", cycle.plan.deletions.size()},
                                  {"pods_parsed", pods_parsed},
                                  {"engine_sync",
                                   {{"reloaded", sync.reloaded},
                                    {"queues", sync.queues},
                                    {"nodes", sync.nodes},
                                    {"gangs_removed", sync.gangs_removed},
                                    {"gangs_added", sync.gangs_added},
                                    {"gangs_unasked", sync.gangs_unasked}}},
                                  {"ms", timer.wallMs()},
                                  {"cpu_ms", timer.cpuMs()}});
}

ApiObjects SchedulerLoop::gather() {
  auto objects = caches_.list();
  writer_.assumed().overlay(objects.pods, now());
  return objects;
}

// Preemptions first: victims are deleted; a preemptor binds in this cycle once they are
// gone, or waits for a later one (stillMakingRoom). Returns the admissions to carry out.
std::vector<const state::AdmissionRecord*> SchedulerLoop::preempt(const PlannedCycle& cycle,
                                                                  std::int64_t t) {
  const auto& plan = cycle.plan;
  for (const auto& p : plan.preempted) {
    // A lone pod's group not in the API has no status to tell it: its pod goes.
    if (caches_.podGroups().cache().get(p.gang))
      writer_.annotateGroup(p.gang, kPreemptedBy, p.preemptor);
    auto gang = cycle.cluster.gangs.find(p.gang);
    log::info("gang preempted",
              {{"gang", p.gang}, {"preemptor", p.preemptor}, {"reason", p.reason}});
    metrics_.add("troupe_preemptions_total",
                 {{"queue", gang != cycle.cluster.gangs.end() ? gang->second.queue : ""},
                  {"reason", p.reason}});
  }
  if (auto s = accountPreemptions(state_, plan.preempted, t); !s)
    log::error("accounting write failed; no preemption of this cycle is counted",
               {{"gangs", plan.preempted.size()}, {"error", s.error().describe()}});
  writer_.deletePods(plan.deletions);
  const auto waiting_preemptors = stillMakingRoom(writer_, plan.making_room);
  std::vector<const state::AdmissionRecord*> records;
  for (const auto& record : plan.bindings)
    if (!waiting_preemptors.contains(record.gang)) records.push_back(&record);
  return records;
}

void SchedulerLoop::closeJournal(const PlannedCycle& cycle,
                                 const std::vector<const state::AdmissionRecord*>& records,
                                 const std::vector<AdmissionOutcome>& outcomes, std::int64_t t) {
  const auto submitted_at = submitTimes(cycle.cluster);
  if (auto closed = closeAdmissions(state_, records, outcomes, cycle.cluster, submitted_at, t);
      !closed) {
    // Nothing of the close was written: the records stay open, and the next cycle
    // finishes or rolls back their gangs as a new leader would.
    log::error("journal close failed; its records stay open and are recovered next cycle",
               {{"gangs", records.size()}, {"error", closed.error().describe()}});
    journal_left_open_ = true;
  }
  for (std::size_t i = 0; i < records.size(); ++i) {
    const auto& record = *records[i];
    if (outcomes[i] != AdmissionOutcome::Bound) continue;
    if (cycle.cluster.gangs.at(record.gang).state == GangState::Running) continue;  // grown
    auto pg = caches_.podGroups().cache().get(record.gang);
    if (pg && !annotation(*pg, kPreemptedBy).empty())
      writer_.annotateGroup(record.gang, kPreemptedBy, nullptr);
    auto submit = submitted_at.find(record.gang);
    const auto waited = submit == submitted_at.end() ? 0 : t - submit->second;
    metrics_.add("troupe_admissions_total", {{"queue", record.queue}});
    metrics_.observe("troupe_submission_to_admission_seconds", {{"queue", record.queue}},
                     static_cast<double>(std::max<std::int64_t>(0, waited)));
    // Per gang, and so per pod of gangs of one: at debug, as every line whose number grows
    // with the pods; the cycle's line counts them.
    log::debug("gang admitted",
               {{"gang", record.gang}, {"queue", record.queue}, {"pods", record.bindings.size()}});
  }
}

void SchedulerLoop::recordEvents(const std::vector<EventRecord>& events,
                                 const std::vector<const state::AdmissionRecord*>& records,
                                 const std::vector<AdmissionOutcome>& outcomes) {
  std::set<std::string> bound;
  for (std::size_t i = 0; i < records.size(); ++i)
    if (outcomes[i] == AdmissionOutcome::Bound) bound.insert(records[i]->gang);
  for (const auto& e : events)
    if (!e.on_binding || bound.contains(e.gang)) events_.recordForGang(e);
}

void SchedulerLoop::recoverJournal() {
  auto held = state_.hold();
  journal_left_open_ = !recoverAdmissions(state_.journal(), writer_, [this] {
    return buildClusterSnapshot(gather(), {now(), {}});
  });
}

}  // namespace troupe::controllers
