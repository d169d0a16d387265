#include "queueing/state_reports.h"

#include <functional>

#include <fmt/format.h>

#include "queueing/fair_share.h"
#include "queueing/queue_limits.h"

namespace troupe::queueing {

PodPlacement toPlacement(const EngineState& st, const Pod& pod) {
  PodPlacement p;
  p.pod_set = pod.pod_set;
  p.node = st.nodes[pod.node].spec.name;
  p.terminating = pod.terminating;
  for (int i = 0; i < 64; ++i)
    if ((pod.gpus >> i) & 1) p.gpus.push_back(i);
  return p;
}

namespace {

std::string resourceName(std::int32_t slot) {
  switch (slot) {
    case kGpu: return "nvidia.com/gpu";
    case kCpu: return "cpu";
    case kMemory: return "memory";
    default: return fmt::format("extended-{}", slot);
  }
}

}  // namespace

PendingExplanation explain(const EngineState& st, GangId g) {
  const GangState& gs = st.gangs[g];
  const Why& w = gs.why;
  PendingExplanation e;
  e.gang = gs.spec.name;
  e.queue = gs.spec.queue;
  e.variant = gs.spec.variant;
  e.reason = w.reason;
  e.dominant_resource = resourceName(w.dominant);
  e.dominant_slot = w.dominant;
  // The queue's numbers as they are now, not as they were when the reason was found.
  if (gs.queue >= 0) {
    const QueueState& q = st.queues[static_cast<std::size_t>(gs.queue)];
    const auto dom = static_cast<std::size_t>(w.dominant);
    e.queue_guaranteed = q.spec.guaranteed[dom];
    e.queue_allocated = q.allocated[dom];
    e.queue_limit = q.spec.limit[dom];
    e.queue_fair_share = q.fair_share[dom];
  }
  e.request = gs.min_request;
  e.largest_free_domain_pods = w.domain_pods;
  if (w.level >= 0 && w.domain >= 0 &&
      static_cast<std::size_t>(w.domain) <
          st.domains[static_cast<std::size_t>(w.level)].names.size())
    e.largest_free_domain =
        st.domains[static_cast<std::size_t>(w.level)].names[static_cast<std::size_t>(w.domain)];
  e.blocking_gang = w.blocking;
  e.detail = w.detail.str();
  if (gs.queue >= 0 && w.quota_level != kNoQuotaLevel) {
    // The binding level's numbers as they are now (on an empty cluster for Inadmissible).
    const auto r = static_cast<std::size_t>(w.quota_resource);
    const QuotaBreach b = quotaAt(st, gs.queue, gs.min_request, w.quota_level, r,
                                  w.reason == PendingReason::Inadmissible);
    e.limited_by_quota = true;
    e.limit_queue =
        w.quota_level >= 0 ? st.queues[static_cast<std::size_t>(w.quota_level)].spec.name : "";
    e.limit_resource = resourceName(w.quota_resource);
    e.limit_slot = w.quota_resource;
    e.limit_holds = b.holds;
    e.limit_kept = b.kept;
    e.limit_asks = b.asks;
    e.limit_of = b.limit;
  }
  if (!gs.spec.pod_sets.empty() && !gs.classes.empty()) {
    // The gang's shape and what the nodes it may use offer, in its dominant resource.
    const auto dom = static_cast<std::size_t>(w.dominant);
    const PodSet& first = gs.spec.pod_sets.front();
    const ConstraintClass& c = st.constraint_classes[gs.classes.front()];
    e.pods = first.min_count;
    e.pod_request = first.shape->requests[dom];
    e.eligible_nodes = static_cast<std::int32_t>(c.eligible.size());
    e.largest_node = c.largest_node[dom];
    if (gs.spec.topology.mode == TopologyMode::Required) {
      e.topology_level = gs.spec.topology.level;
      const std::int32_t level = st.levelIndex(gs.spec.topology.level);
      if (level >= 0) e.largest_domain = c.largest_domain[static_cast<std::size_t>(level)][dom];
    }
  }
  return e;
}

QueueStatus statusOf(const EngineState& st, QueueId q) {
  const QueueState& qs = st.queues[static_cast<std::size_t>(q)];
  QueueStatus s;
  s.queue = qs.spec.name;
  s.fair_share = qs.fair_share;
  s.allocated = qs.allocated;
  std::function<ResourceVector(QueueId)> demand = [&](QueueId x) {
    const QueueState& xs = st.queues[static_cast<std::size_t>(x)];
    if (xs.leaf()) return xs.demand;
    ResourceVector d;
    for (QueueId c : xs.children) d += demand(c);
    return d;
  };
  s.demand = demand(q);
  s.dominant_share = dominantShare(qs.allocated, qs.fair_share);
  return s;
}

}  // namespace troupe::queueing
