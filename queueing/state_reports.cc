#include "queueing/state_reports.h"

#include <functional>

#include <fmt/format.h>

#include "queueing/fair_share.h"

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

PendingExplanation explain(const EngineState& st, GangId g) {
  const GangState& gs = st.gangs[g];
  const Why& w = gs.why;
  PendingExplanation e;
  e.gang = gs.spec.name;
  e.queue = gs.spec.queue;
  e.reason = w.reason;
  switch (w.dominant) {
    case kGpu: e.dominant_resource = "nvidia.com/gpu"; break;
    case kCpu: e.dominant_resource = "cpu"; break;
    case kMemory: e.dominant_resource = "memory"; break;
    default: e.dominant_resource = fmt::format("extended-{}", w.dominant);
  }
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
