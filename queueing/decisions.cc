#include "queueing/decisions.h"

#include <fmt/format.h>

namespace troupe::queueing {

const char* pendingReasonName(PendingReason reason) {
  switch (reason) {
    case PendingReason::QueueNotFound: return "QueueNotFound";
    case PendingReason::InvalidGang: return "InvalidGang";
    case PendingReason::QueueAtLimit: return "QueueAtLimit";
    case PendingReason::OverFairShare: return "OverFairShare";
    case PendingReason::NoPlacement: return "NoPlacement";
    case PendingReason::Unschedulable: return "Unschedulable";
    case PendingReason::TopologyUnsatisfiable: return "TopologyUnsatisfiable";
    case PendingReason::WaitingForReclaim: return "WaitingForReclaim";
    case PendingReason::BlockedByStarvingJob: return "BlockedByStarvingJob";
    case PendingReason::BlockedByQueueHead: return "BlockedByQueueHead";
    case PendingReason::Reserved: return "Reserved";
    case PendingReason::Preempted: return "Preempted";
  }
  return "Unknown";
}

namespace {

std::string amount(std::int64_t q) {
  return q >= ResourceVector::kUnlimited ? std::string("unlimited") : std::to_string(q);
}

}  // namespace

std::string describe(const PendingExplanation& e) {
  const std::string& res = e.dominant_resource;
  const std::int64_t want = e.request[kGpu] > 0 ? e.request[kGpu] : e.request[kCpu];
  std::string queue =
      fmt::format("queue {} holds {} {} (guaranteed {}, fair share {}, limit {})", e.queue,
                  amount(e.queue_allocated), res, amount(e.queue_guaranteed),
                  amount(e.queue_fair_share), amount(e.queue_limit));
  std::string where =
      e.largest_free_domain.empty()
          ? fmt::format("the cluster has room for {} of its pods", e.largest_free_domain_pods)
          : fmt::format("the largest free domain {} has room for {} of its pods",
                        e.largest_free_domain, e.largest_free_domain_pods);
  std::string text;
  switch (e.reason) {
    case PendingReason::QueueNotFound: text = fmt::format("no leaf queue named {}", e.queue); break;
    case PendingReason::InvalidGang: text = e.detail; break;
    case PendingReason::QueueAtLimit:
      text = fmt::format("admitting it would pass the limit: {}", queue);
      break;
    case PendingReason::OverFairShare:
      text = fmt::format(
          "it needs {} {} that are not free, and its queue would end above its "
          "fair share, so it may not reclaim: {}",
          want, res, queue);
      break;
    case PendingReason::NoPlacement:
      text = fmt::format("not enough free capacity where its pods may run: {}", where);
      break;
    case PendingReason::Unschedulable:
      text = "no node could hold its pods even if empty (selectors, affinity, taints or size)";
      break;
    case PendingReason::TopologyUnsatisfiable:
      text = "no domain of its required topology level could hold it even if empty";
      break;
    case PendingReason::WaitingForReclaim: text = fmt::format("{}; {}", e.detail, queue); break;
    case PendingReason::BlockedByStarvingJob:
      text = fmt::format("the capacity it could use is reserved for starving gang {}",
                         e.blocking_gang);
      break;
    case PendingReason::BlockedByQueueHead:
      text = fmt::format("waits behind {}, which cannot be admitted", e.blocking_gang);
      break;
    case PendingReason::Reserved:
      text = fmt::format("starving: capacity is reserved for it as it frees; {}", where);
      break;
    case PendingReason::Preempted:
      text = "preempted this cycle; it waits to be placed again";
      break;
  }
  if (!e.detail.empty() && e.reason != PendingReason::InvalidGang &&
      e.reason != PendingReason::WaitingForReclaim)
    text += " (" + e.detail + ")";
  return fmt::format("{}: {}", pendingReasonName(e.reason), text);
}

}  // namespace troupe::queueing
