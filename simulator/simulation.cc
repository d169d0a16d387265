#include "simulator/simulation.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <queue>
#include <set>
#include <unordered_map>

#include "common/check.h"
#include "queueing/engine.h"
#include "queueing/policy_names.h"
#include "queueing/usage.h"
#include "simulator/gpu_ledger.h"
#include "simulator/gpu_sharing_tracker.h"
#include "simulator/idle_causes.h"
#include "simulator/owed_guarantee.h"
#include "simulator/progress_bar.h"
#include "simulator/reservation_tracker.h"
#include "simulator/share_tracker.h"
#include "simulator/summary.h"

namespace troupe::simulator {
namespace {

struct HeldPod {
  int node = 0;
  std::vector<int> gpus;
};

enum class Phase { Future, Pending, Running, Done };

// One stretch of a run at a constant number of pods, for rolling back to a checkpoint.
struct RunPiece {
  int64_t start_s = 0;
  int64_t progress = 0;  // pod-seconds done at start_s
  int pods = 0;
};

// The simulator's own view of one job. Work is counted in pod-seconds so that an elastic
// gang running with fewer pods progresses proportionally slower.
struct JobState {
  Phase phase = Phase::Future;
  size_t queue = 0;  // leaf index
  int full_pods = 0;
  int gpus_per_pod = 0;
  // A fraction of one GPU per pod, in thousandths (gpus_per_pod is 0 then); 0: whole GPUs.
  int gpu_milli = 0;
  int64_t milliPerPod() const { return gpu_milli > 0 ? gpu_milli : int64_t{gpus_per_pod} * 1000; }
  GangShape shape() const { return {full_pods, gpus_per_pod, gpu_milli}; }
  int64_t work = 0;      // duration * full_pods
  int64_t progress = 0;  // pod-seconds done as of the current piece's start
  std::vector<HeldPod> pods;
  // Pieces of the current run (since the last admission), for checkpoints.
  std::vector<RunPiece> run;
  // Bumped whenever the job stops or changes size, so stale completion events are ignored.
  uint32_t epoch = 0;

  int64_t progressAt(int64_t t) const {
    if (run.empty()) return progress;
    const RunPiece& piece = run.back();
    return piece.progress + static_cast<int64_t>(piece.pods) * (t - piece.start_s);
  }
  // Progress at the last checkpoint at or before t: checkpoints are taken every
  // `interval` seconds since the run began; with interval 0, only the run's start counts.
  int64_t checkpointProgressAt(int64_t t, int64_t interval) const {
    if (run.empty()) return progress;
    int64_t begin = run.front().start_s;
    int64_t at = interval > 0 ? begin + (t - begin) / interval * interval : begin;
    for (auto it = run.rbegin(); it != run.rend(); ++it) {
      if (it->start_s <= at)
        return it->progress + static_cast<int64_t>(it->pods) * (at - it->start_s);
    }
    return run.front().progress;
  }
};

// The replay's waiting jobs as the idle split reads them: each shape's jobs in index
// (submit) order, with the engine's latest reason.
class WaitingByShape final : public WaitingGangs {
 public:
  WaitingByShape(const std::map<WaitingShape, std::set<size_t>>& by_shape,
                 const std::vector<std::optional<queueing::PendingReason>>& reasons)
      : reasons_(reasons) {
    for (const auto& [shape, jobs] : by_shape)
      cursors_.push_back({shape, jobs.begin(), jobs.end()});
  }
  size_t shapeCount() const override { return cursors_.size(); }
  WaitingShape shape(size_t s) const override { return cursors_[s].shape; }
  std::optional<WaitingGang> next(size_t s) override {
    Cursor& c = cursors_[s];
    if (c.at == c.end) return std::nullopt;
    const size_t j = *c.at++;
    return WaitingGang{j, reasons_[j]};
  }

 private:
  struct Cursor {
    WaitingShape shape;
    std::set<size_t>::const_iterator at, end;
  };
  std::vector<Cursor> cursors_;
  const std::vector<std::optional<queueing::PendingReason>>& reasons_;
};

struct Completion {
  int64_t time = 0;
  size_t job = 0;
  uint32_t epoch = 0;
  bool operator>(const Completion& o) const { return time != o.time ? time > o.time : job > o.job; }
};

class Replay {
 public:
  Replay(const ClusterSpec& cluster, const SimulationOptions& options)
      : cluster_(cluster), options_(options), ledger_(cluster) {}

  Result<SimulationResult> run(const std::vector<TraceJob>& trace);

 private:
  Status setUp(const std::vector<TraceJob>& trace);
  void arrive(size_t j, int64_t now);
  void complete(size_t j, int64_t now);
  void apply(const queueing::Decisions& decisions, int64_t now);
  void startPiece(size_t j, int64_t now);
  void closeSegment(size_t j, int64_t now);
  void scheduleCompletion(size_t j, int64_t now);
  void advanceUsage(int64_t now);
  void noteReasons(const queueing::Decisions& decisions, int64_t now);
  void startWaiting(size_t j);
  void stopWaiting(size_t j);
  void addGangSize(size_t j, int64_t gpus);
  void removeGangSize(size_t j, int64_t gpus);
  void observe(int64_t now, bool evictions);
  WaitingShape waitingShape(size_t j) const;
  size_t jobIndex(const std::string& name) const;
  // The job named `name`, searching `by_id_` from `from` on; `from` moves to it.
  size_t jobIndexFrom(const std::string& name, size_t& from) const;

  const ClusterSpec& cluster_;
  SimulationOptions options_;
  GpuLedger ledger_;
  queueing::Engine engine_;
  std::vector<TraceJob> trace_;
  std::vector<JobState> state_;
  std::vector<JobOutcome> outcomes_;
  std::vector<RunSegment> segments_;
  std::vector<int64_t> segment_start_;
  std::unordered_map<std::string, size_t> by_name_;
  // Job indexes sorted by id: the engine lists the gangs it explains sorted by name, so
  // they are found by galloping forward rather than hashing each name (under FIFO every
  // waiting gang is explained again each time the head changes).
  std::vector<size_t> by_id_;
  std::priority_queue<Completion, std::vector<Completion>, std::greater<>> completions_;
  GangOptions gang_options_;

  // Leaf queues, in cluster-file order, and their engine specs (for decayed usage).
  std::vector<std::string> leaf_names_;
  std::vector<int64_t> leaf_guarantees_;
  std::vector<queueing::QueueSpec> leaf_specs_;
  std::vector<int64_t> usage_;        // whole GPUs held by running jobs, per leaf
  std::vector<int64_t> usage_milli_;  // GPUs held by running jobs in thousandths, per leaf
  bool shares_gpus_ = false;          // some replayed job asks a fraction of one GPU
  // Per leaf: the GPU sizes of its gangs (running at their current size, pending at full
  // size), and what of its guarantee that makes it owed (owedGuarantee), recomputed after
  // a cycle for the leaves whose sizes moved.
  std::vector<GangSizes> gang_sizes_;
  std::vector<int64_t> owed_;
  std::vector<uint8_t> owed_stale_;
  int64_t usage_time_ = -1;
  std::unique_ptr<ShareTracker> shares_;

  // Pending jobs by shape, each shape's by index, which is submit order (then trace
  // order), for the idle split.
  std::map<WaitingShape, std::set<size_t>> waiting_;
  // The engine's latest reason for each pending job; unset until it gave one.
  std::vector<std::optional<queueing::PendingReason>> reason_;
  int64_t reserved_now_ = 0;  // pending jobs whose reason is Reserved
  std::vector<int> node_rack_;
  std::vector<int> free_scratch_;
  IdleCauseTracker idle_;
  ReservationTracker reservations_;

  int64_t skipped_ = 0;
  int64_t never_ran_ = 0;  // of skipped_: jobs the trace gives no run time
  GpuSharingTracker sharing_;
  int64_t pending_ = 0;
  int64_t running_ = 0;
  int64_t done_ = 0;
  int64_t cycles_ = 0;
  // When the engine said something changes with no event (a job starts to starve, a
  // minRuntimeSeconds protection ends, a reservation's estimate runs out).
  std::optional<int64_t> wakeup_;
};

size_t Replay::jobIndexFrom(const std::string& name, size_t& from) const {
  auto less = [&](size_t j, const std::string& n) { return trace_[j].id < n; };
  size_t step = 1, hi = from;
  while (hi < by_id_.size() && less(by_id_[hi], name)) {
    from = hi + 1;
    hi += step;
    step *= 2;
  }
  auto end = by_id_.begin() + static_cast<std::ptrdiff_t>(std::min(hi + 1, by_id_.size()));
  auto it = std::lower_bound(by_id_.begin() + static_cast<std::ptrdiff_t>(from), end, name, less);
  TROUPE_CHECK(it != by_id_.end() && trace_[*it].id == name,
               "the engine explained an unknown gang '{}'", name);
  from = static_cast<size_t>(it - by_id_.begin());
  return *it;
}

size_t Replay::jobIndex(const std::string& name) const {
  auto it = by_name_.find(name);
  TROUPE_CHECK(it != by_name_.end(), "the engine decided about an unknown gang '{}'", name);
  return it->second;
}

Status Replay::setUp(const std::vector<TraceJob>& trace) {
  engine_ = queueing::Engine(queueing::Policy{.kind = options_.policy});
  for (auto& node : engineNodes(cluster_)) {
    if (auto s = engine_.upsertNode(std::move(node)); !s) return s;
  }
  std::map<std::string, size_t> leaf_index;
  for (auto& queue : engineQueues(cluster_)) {
    if (cluster_.isLeaf(queue.name)) {
      leaf_index.emplace(queue.name, leaf_names_.size());
      leaf_names_.push_back(queue.name);
      leaf_guarantees_.push_back(queue.guaranteed[queueing::kGpu]);
      leaf_specs_.push_back(queue);
    }
    if (auto s = engine_.upsertQueue(std::move(queue)); !s) return s;
  }
  usage_.assign(leaf_names_.size(), 0);
  usage_milli_.assign(leaf_names_.size(), 0);
  gang_sizes_.assign(leaf_names_.size(), {});
  owed_.assign(leaf_names_.size(), 0);
  owed_stale_.assign(leaf_names_.size(), 0);
  shares_ = std::make_unique<ShareTracker>(leaf_guarantees_);
  std::map<std::string, int> rack_index;
  for (const auto& node : cluster_.nodes) {
    auto [it, added] = rack_index.emplace(node.rack, static_cast<int>(rack_index.size()));
    node_rack_.push_back(it->second);
  }

  int node_gpus = 0;
  for (const auto& node : cluster_.nodes) node_gpus = std::max(node_gpus, node.gpus);
  const int64_t cluster_gpus = cluster_.totalGpus();
  for (const auto& job : trace) {
    GangShape shape = gangShapeOf(job, node_gpus, cluster_gpus, gang_options_.cpu_and_memory);
    if (shape.pods == 0) {
      ++skipped_;
      never_ran_ += job.never_ran ? 1 : 0;
      continue;
    }
    auto leaf = leaf_index.find(job.queue);
    if (leaf == leaf_index.end()) {
      if (cluster_.default_queue.empty()) {
        return makeError(ErrorCode::Invalid, "virtual_cluster",
                         fmt::format("job {} names '{}', which is no leaf queue of the cluster "
                                     "file, and the file sets no defaultQueue",
                                     job.id, job.queue));
      }
      leaf = leaf_index.find(cluster_.default_queue);
    }
    JobState st;
    st.queue = leaf->second;
    st.full_pods = shape.pods;
    st.gpus_per_pod = shape.gpus_per_pod;
    st.gpu_milli = shape.gpu_milli_per_pod;
    shares_gpus_ = shares_gpus_ || shape.gpu_milli_per_pod > 0;
    st.work = job.duration_s * shape.pods;
    JobOutcome out;
    out.id = job.id;
    out.queue = leaf_names_[st.queue];
    out.gpus = job.gpus;
    out.gpu_milli = job.gpuMilli();
    out.pods = shape.pods;
    out.submit_s = job.submit_s;
    out.duration_s = job.duration_s;
    by_name_.emplace(job.id, trace_.size());
    trace_.push_back(job);
    state_.push_back(std::move(st));
    outcomes_.push_back(std::move(out));
  }
  segment_start_.assign(trace_.size(), 0);
  reason_.assign(trace_.size(), std::nullopt);
  by_id_.resize(trace_.size());
  for (size_t j = 0; j < by_id_.size(); ++j) by_id_[j] = j;
  std::sort(by_id_.begin(), by_id_.end(),
            [&](size_t a, size_t b) { return trace_[a].id < trace_[b].id; });
  return {};
}

void Replay::arrive(size_t j, int64_t now) {
  JobState& st = state_[j];
  auto status =
      engine_.submit(engineGang(trace_[j], leaf_names_[st.queue], st.shape(), gang_options_));
  TROUPE_CHECK(status.ok(), "the engine refused gang {}: {}", trace_[j].id,
               status.error().describe());
  st.phase = Phase::Pending;
  addGangSize(j, static_cast<int64_t>(st.full_pods) * st.gpus_per_pod);
  startWaiting(j);
  ++pending_;
  (void)now;
}

void Replay::addGangSize(size_t j, int64_t gpus) {
  const size_t q = state_[j].queue;
  ++gang_sizes_[q][gpus];
  owed_stale_[q] = 1;
}

void Replay::removeGangSize(size_t j, int64_t gpus) {
  const size_t q = state_[j].queue;
  auto it = gang_sizes_[q].find(gpus);
  TROUPE_CHECK(it != gang_sizes_[q].end() && it->second > 0,
               "queue {} has no gang of {} GPUs to remove", leaf_names_[q], gpus);
  if (--it->second == 0) gang_sizes_[q].erase(it);
  owed_stale_[q] = 1;
}

// Only gangs of whole GPUs wait for idle GPUs: a pod sharing a GPU or asking none is left
// out of the idle split (docs/simulator.md).
void Replay::startWaiting(size_t j) {
  if (state_[j].gpus_per_pod > 0) waiting_[waitingShape(j)].insert(j);
}

void Replay::stopWaiting(size_t j) {
  if (state_[j].gpus_per_pod > 0) {
    auto shape = waiting_.find(waitingShape(j));
    if (shape == waiting_.end() || shape->second.erase(j) == 0) return;
    if (shape->second.empty()) waiting_.erase(shape);
  }
  if (reason_[j] == queueing::PendingReason::Reserved) --reserved_now_;
  reason_[j].reset();
}

WaitingShape Replay::waitingShape(size_t j) const {
  const JobState& st = state_[j];
  return WaitingShape{
      st.full_pods, st.gpus_per_pod,
      st.full_pods > 1 && gang_options_.topology == queueing::TopologyMode::Required};
}

void Replay::closeSegment(size_t j, int64_t now) {
  JobState& st = state_[j];
  if (st.pods.empty() || now <= segment_start_[j]) return;
  RunSegment seg;
  seg.job = j;
  seg.start_s = segment_start_[j];
  seg.end_s = now;
  for (const auto& pod : st.pods) seg.placement.emplace_back(pod.node, st.milliPerPod());
  segments_.push_back(std::move(seg));
}

void Replay::startPiece(size_t j, int64_t now) {
  JobState& st = state_[j];
  st.progress = st.progressAt(now);
  st.run.push_back({now, st.progress, static_cast<int>(st.pods.size())});
  segment_start_[j] = now;
  ++st.epoch;
  scheduleCompletion(j, now);
}

void Replay::scheduleCompletion(size_t j, int64_t now) {
  const JobState& st = state_[j];
  auto pods = static_cast<int64_t>(st.pods.size());
  int64_t remaining = std::max<int64_t>(0, st.work - st.progress);
  int64_t end = now + (remaining + pods - 1) / pods;
  completions_.push({end, j, st.epoch});
}

void Replay::complete(size_t j, int64_t now) {
  JobState& st = state_[j];
  closeSegment(j, now);
  for (const auto& pod : st.pods) ledger_.release(pod.node, pod.gpus, st.gpu_milli);
  int64_t gpus = static_cast<int64_t>(st.pods.size()) * st.gpus_per_pod;
  usage_[st.queue] -= gpus;
  usage_milli_[st.queue] -= static_cast<int64_t>(st.pods.size()) * st.milliPerPod();
  removeGangSize(j, gpus);
  st.pods.clear();
  st.run.clear();
  st.phase = Phase::Done;
  outcomes_[j].end_s = now;
  --running_;
  ++done_;
  auto status = engine_.remove(trace_[j].id);
  TROUPE_CHECK(status.ok(), "the engine could not remove finished gang {}: {}", trace_[j].id,
               status.error().describe());
}

void Replay::apply(const queueing::Decisions& decisions, int64_t now) {
  // A cycle never undoes its own steps (queueing/decisions.h): the phase checks below
  // stop the replay loudly if one did.
  for (const auto& p : decisions.preemptions) {
    size_t j = jobIndex(p.gang);
    JobState& st = state_[j];
    TROUPE_CHECK(st.phase == Phase::Running, "gang {} preempted but not running", p.gang);
    closeSegment(j, now);
    int64_t reached = st.progressAt(now);
    // Tiresias and SRTF suspend a job with a checkpoint as they preempt it.
    const bool suspends = options_.policy == queueing::PolicyKind::Tiresias ||
                          options_.policy == queueing::PolicyKind::Srtf;
    int64_t kept =
        suspends ? reached : st.checkpointProgressAt(now, options_.checkpoint_interval_s);
    outcomes_[j].lost_work_s += (reached - kept + st.full_pods - 1) / st.full_pods;
    outcomes_[j].preemptions += 1;
    st.progress = kept;
    for (const auto& pod : st.pods) ledger_.release(pod.node, pod.gpus, st.gpu_milli);
    const int64_t held = static_cast<int64_t>(st.pods.size()) * st.gpus_per_pod;
    usage_[st.queue] -= held;
    usage_milli_[st.queue] -= static_cast<int64_t>(st.pods.size()) * st.milliPerPod();
    removeGangSize(j, held);
    addGangSize(j, static_cast<int64_t>(st.full_pods) * st.gpus_per_pod);
    st.pods.clear();
    st.run.clear();
    ++st.epoch;
    st.phase = Phase::Pending;
    startWaiting(j);
    --running_;
    ++pending_;
  }
  for (const auto& r : decisions.resizes) {
    size_t j = jobIndex(r.gang);
    JobState& st = state_[j];
    TROUPE_CHECK(st.phase == Phase::Running, "gang {} resized but not running", r.gang);
    closeSegment(j, now);
    st.progress = st.progressAt(now);
    removeGangSize(j, static_cast<int64_t>(st.pods.size()) * st.gpus_per_pod);
    for (const auto& removed : r.removed) {
      int node = ledger_.nodeIndex(removed.node);
      auto it = std::find_if(st.pods.begin(), st.pods.end(), [&](const HeldPod& pod) {
        return pod.node == node && (removed.gpus.empty() || pod.gpus == removed.gpus);
      });
      TROUPE_CHECK(it != st.pods.end(), "resize of {} removes a pod it does not have on {}", r.gang,
                   removed.node);
      ledger_.release(it->node, it->gpus, st.gpu_milli);
      st.pods.erase(it);
      usage_[st.queue] -= st.gpus_per_pod;
      usage_milli_[st.queue] -= st.milliPerPod();
    }
    for (const auto& added : r.added) {
      int node = ledger_.nodeIndex(added.node);
      TROUPE_CHECK(node >= 0, "resize of {} adds a pod on unknown node {}", r.gang, added.node);
      st.pods.push_back({node, ledger_.take(node, added.gpus, st.gpus_per_pod, st.gpu_milli)});
      usage_[st.queue] += st.gpus_per_pod;
      usage_milli_[st.queue] += st.milliPerPod();
    }
    TROUPE_CHECK(!st.pods.empty() && static_cast<int>(st.pods.size()) <= st.full_pods,
                 "resize leaves {} with {} pods (full size {})", r.gang, st.pods.size(),
                 st.full_pods);
    addGangSize(j, static_cast<int64_t>(st.pods.size()) * st.gpus_per_pod);
    outcomes_[j].resizes += 1;
    startPiece(j, now);
  }
  for (const auto& a : decisions.admissions) {
    size_t j = jobIndex(a.gang);
    JobState& st = state_[j];
    const std::vector<queueing::PodPlacement>& pods = a.pods;
    TROUPE_CHECK(st.phase == Phase::Pending, "gang {} admitted but not pending", a.gang);
    TROUPE_CHECK(!pods.empty() && static_cast<int>(pods.size()) <= st.full_pods,
                 "gang {} admitted with {} pods (full size {})", a.gang, pods.size(), st.full_pods);
    for (const auto& pod : pods) {
      int node = ledger_.nodeIndex(pod.node);
      TROUPE_CHECK(node >= 0, "gang {} admitted on unknown node {}", a.gang, pod.node);
      st.pods.push_back({node, ledger_.take(node, pod.gpus, st.gpus_per_pod, st.gpu_milli)});
    }
    const int64_t held = static_cast<int64_t>(st.pods.size()) * st.gpus_per_pod;
    usage_[st.queue] += held;
    usage_milli_[st.queue] += static_cast<int64_t>(st.pods.size()) * st.milliPerPod();
    removeGangSize(j, static_cast<int64_t>(st.full_pods) * st.gpus_per_pod);
    addGangSize(j, held);
    outcomes_[j].reserved_s += reservations_.release(j, now, true);
    stopWaiting(j);
    if (outcomes_[j].start_s < 0) outcomes_[j].start_s = now;
    st.phase = Phase::Running;
    st.run.clear();
    --pending_;
    ++running_;
    startPiece(j, now);
  }
}

void Replay::advanceUsage(int64_t now) {
  if (options_.policy != queueing::PolicyKind::Troupe) return;
  if (usage_time_ >= 0 && now > usage_time_) {
    queueing::Seconds half_life = engine_.policy().usage_half_life_seconds;
    for (size_t q = 0; q < leaf_specs_.size(); ++q) {
      auto& spec = leaf_specs_[q];
      auto allocated = queueing::ResourceVector::of(usage_[q], 0, 0);
      // Usage in thousandths counts only when some job shares a GPU: otherwise it mirrors
      // the GPU slot with finer rounding, and the GPU slot alone decides, as on any
      // cluster of whole GPUs.
      if (shares_gpus_) allocated[kGpuMilliSlot] = usage_milli_[q];
      auto next =
          queueing::advanceUsage(spec.decayed_usage, allocated, now - usage_time_, half_life);
      if (next == spec.decayed_usage) continue;
      spec.decayed_usage = next;
      auto status = engine_.upsertQueue(spec);
      TROUPE_CHECK(status.ok(), "the engine refused queue {}: {}", spec.name,
                   status.error().describe());
    }
  }
  usage_time_ = now;
}

// Reads the reasons the engine gave this cycle (it names a pending gang only when its
// reason changed) and follows the reservations they announce.
void Replay::noteReasons(const queueing::Decisions& decisions, int64_t now) {
  size_t from = 0;
  for (const std::string& name : decisions.explained) {
    const size_t j = jobIndexFrom(name, from);
    if (state_[j].phase != Phase::Pending) continue;
    auto explanation = engine_.explanation(name);
    TROUPE_CHECK(explanation.has_value(), "the engine explained {} but has no explanation of it",
                 name);
    const bool was_reserved = reason_[j] == queueing::PendingReason::Reserved;
    reason_[j] = explanation->reason;
    const bool reserved = explanation->reason == queueing::PendingReason::Reserved;
    if (reserved && !was_reserved) {
      ++reserved_now_;
      reservations_.hold(j, static_cast<int64_t>(state_[j].full_pods) * state_[j].gpus_per_pod,
                         now);
    } else if (!reserved && was_reserved) {
      --reserved_now_;
      outcomes_[j].reserved_s += reservations_.release(j, now, false);
    }
  }
}

// Samples the settled state after a cycle: guarantees owed and held, idle GPUs by cause,
// reservations held. Each holds until the next sample.
void Replay::observe(int64_t now, bool evictions) {
  for (size_t q = 0; q < owed_.size(); ++q) {
    if (!owed_stale_[q]) continue;
    owed_[q] = owedGuarantee(gang_sizes_[q], leaf_guarantees_[q]);
    owed_stale_[q] = 0;
  }
  shares_->observe(now, usage_, owed_);
  const bool someone_waits = !waiting_.empty();
  const int64_t free = cluster_.totalGpus() - ledger_.usedGpus();
  IdleSplit split{};
  if (someone_waits && free > 0) {
    free_scratch_.resize(cluster_.nodes.size());
    for (size_t n = 0; n < free_scratch_.size(); ++n)
      free_scratch_[n] = ledger_.freeGpus(static_cast<int>(n));
    WaitingByShape waiting(waiting_, reason_);
    split = splitIdleGpus(free_scratch_, node_rack_, waiting, reserved_now_ > 0, evictions);
  }
  idle_.observe(now, someone_waits, free, split);
  sharing_.observe(now, ledger_.partlyUsedGpus(), ledger_.strandedMilli());
  reservations_.observe(now);
}

Result<SimulationResult> Replay::run(const std::vector<TraceJob>& trace) {
  gang_options_ = options_.gangs;
  // Only the oracle is told run times.
  gang_options_.known_durations = options_.policy == queueing::PolicyKind::Srtf;
  gang_options_.cpu_and_memory = cluster_.simulatesCpuAndMemory();
  if (auto s = setUp(trace); !s) return s.error();
  auto wall_start = std::chrono::steady_clock::now();
  ProgressBar bar(static_cast<int64_t>(trace_.size()), options_.progress);
  size_t next_arrival = 0;
  int64_t now = trace_.empty() ? 0 : trace_.front().submit_s;
  while (true) {
    // Drop completions made stale by a preemption or resize.
    while (!completions_.empty() &&
           completions_.top().epoch != state_[completions_.top().job].epoch) {
      completions_.pop();
    }
    bool has_arrival = next_arrival < trace_.size();
    if (!has_arrival && completions_.empty()) break;
    int64_t next = INT64_MAX;
    if (has_arrival) next = trace_[next_arrival].submit_s;
    if (!completions_.empty()) next = std::min(next, completions_.top().time);
    if (wakeup_ && *wakeup_ > now) next = std::min(next, *wakeup_);
    TROUPE_CHECK(next >= now, "simulated time went back from {} to {}", now, next);
    // Usage decays over [now, next) with what ran during it.
    advanceUsage(next);
    now = next;
    while (!completions_.empty() && completions_.top().time == now) {
      Completion c = completions_.top();
      completions_.pop();
      if (c.epoch == state_[c.job].epoch) complete(c.job, now);
    }
    while (next_arrival < trace_.size() && trace_[next_arrival].submit_s == now) {
      arrive(next_arrival++, now);
    }
    queueing::Decisions decisions = engine_.schedule(now);
    ++cycles_;
    wakeup_ = decisions.next_wakeup;
    apply(decisions, now);
    noteReasons(decisions, now);
    TROUPE_CHECK(ledger_.usedGpus() <= cluster_.totalGpus(), "{} GPUs held of {}",
                 ledger_.usedGpus(), cluster_.totalGpus());
    observe(now, !decisions.preemptions.empty());
    bar.update(done_, now, pending_, running_);
  }
  bar.finish();
  int64_t end_time = now;
  shares_->finish(end_time);
  idle_.finish(end_time);
  sharing_.finish(end_time);
  reservations_.finish(end_time);
  double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();

  SimulationResult result;
  SummaryInputs in;
  in.policy = queueing::policyKindName(options_.policy);
  in.jobs = &outcomes_;
  in.segments = &segments_;
  in.shares = shares_.get();
  in.idle = &idle_;
  in.reservations = &reservations_;
  in.window_begin_s = options_.window_begin_s;
  in.window_end_s = options_.window_end_s;
  in.queue_names = leaf_names_;
  in.queue_guarantees = leaf_guarantees_;
  in.cluster_gpus = cluster_.totalGpus();
  in.checkpoint_interval_s = options_.checkpoint_interval_s;
  in.skipped_jobs = skipped_;
  in.never_ran_jobs = never_ran_;
  in.sharing = &sharing_;
  in.cluster = &cluster_;
  in.wall_seconds = wall;
  in.cycles = cycles_;
  result.summary = summarize(in);
  result.jobs = std::move(outcomes_);
  result.segments = std::move(segments_);
  result.skipped_jobs = skipped_;
  result.cycles = cycles_;
  return result;
}

}  // namespace

Result<SimulationResult> simulate(const ClusterSpec& cluster, const std::vector<TraceJob>& jobs,
                                  const SimulationOptions& options) {
  Replay replay(cluster, options);
  return replay.run(jobs);
}

}  // namespace troupe::simulator
