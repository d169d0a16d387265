#include "queueing/decisions.h"

#include <fmt/format.h>

#include <iterator>

namespace troupe::queueing {

// kPendingReasons lists every reason: Preempted is the last.
static_assert(std::size(kPendingReasons) == static_cast<std::size_t>(PendingReason::Preempted) + 1);

const char* pendingReasonName(PendingReason reason) {
  switch (reason) {
    case PendingReason::QueueNotFound: return "QueueNotFound";
    case PendingReason::InvalidGang: return "InvalidGang";
    case PendingReason::QueueAtLimit: return "QueueAtLimit";
    case PendingReason::OverFairShare: return "OverFairShare";
    case PendingReason::NoPlacement: return "NoPlacement";
    case PendingReason::TopologyUnsatisfiable: return "TopologyUnsatisfiable";
    case PendingReason::Inadmissible: return "Inadmissible";
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

// "org would hold 143 of its limit 128 nvidia.com/gpu (holds 127, this job asks 16)", with
// what queues under it keep unlent when they keep any.
std::string limitArithmetic(const PendingExplanation& e, bool empty) {
  const std::string& res = e.limit_resource;
  const std::string kept =
      e.limit_kept > 0
          ? fmt::format(", queues under it keep {} of their guarantees unlent", e.limit_kept)
          : std::string();
  const std::int64_t would = e.limit_holds + e.limit_kept + e.limit_asks;
  if (e.limit_queue.empty()) {
    if (empty)
      return fmt::format("it needs {} of the cluster's {} {} (this job asks {}{})", would,
                         e.limit_of, res, e.limit_asks, kept);
    return fmt::format("the cluster would hold {} of its {} {} (holds {}, this job asks {}{})",
                       would, e.limit_of, res, e.limit_holds, e.limit_asks, kept);
  }
  if (empty)
    return fmt::format(
        "even on an empty cluster {} would hold {} of its limit {} {} (this job "
        "asks {}{})",
        e.limit_queue, would, e.limit_of, res, e.limit_asks, kept);
  return fmt::format("{} would hold {} of its limit {} {} (holds {}, this job asks {}{})",
                     e.limit_queue, would, e.limit_of, res, e.limit_holds, e.limit_asks, kept);
}

// "2 pods x 8 nvidia.com/gpu (nodes of up to 8)".
std::string shape(const PendingExplanation& e) {
  return fmt::format("{} pods x {} {} (nodes of up to {})", e.pods, e.pod_request,
                     e.dominant_resource, e.largest_node);
}

// Why no placement exists even on an empty cluster.
std::string neverPlaced(const PendingExplanation& e) {
  const std::string& res = e.dominant_resource;
  if (e.eligible_nodes == 0)
    return "no usable node matches its pods' node selector, affinity and tolerations";
  if (e.pod_request > e.largest_node)
    return fmt::format("a pod asks {} {}; the largest node its pods may use has {}", e.pod_request,
                       res, e.largest_node);
  if (!e.topology_level.empty() && e.pods * e.pod_request > e.largest_domain)
    return fmt::format("it needs {} in one {}; the largest {} its pods may use has {} in all",
                       shape(e), e.topology_level, e.topology_level, e.largest_domain);
  return fmt::format("its {} do not fit the {} nodes its pods may use", shape(e), e.eligible_nodes);
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
          ? fmt::format("the cluster has room for {} of its {}", e.largest_free_domain_pods,
                        shape(e))
          : fmt::format("the largest free domain {} has room for {} of its {}",
                        e.largest_free_domain, e.largest_free_domain_pods, shape(e));
  std::string text;
  bool detail_said = false;
  switch (e.reason) {
    case PendingReason::QueueNotFound: text = fmt::format("no leaf queue named {}", e.queue); break;
    case PendingReason::InvalidGang:
      text = e.detail;
      detail_said = true;
      break;
    case PendingReason::QueueAtLimit:
      text = e.limited_by_quota ? limitArithmetic(e, false)
                                : fmt::format("admitting it would pass the limit: {}", queue);
      if (!e.detail.empty()) text += "; " + e.detail;
      detail_said = true;
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
    case PendingReason::TopologyUnsatisfiable:
      text = fmt::format("no {} has room for it now: {}", e.topology_level, where);
      break;
    case PendingReason::Inadmissible:
      text = fmt::format("it can never be admitted as the queues and nodes are: {}",
                         e.limited_by_quota ? limitArithmetic(e, true) : neverPlaced(e));
      break;
    case PendingReason::WaitingForReclaim:
      text = fmt::format("{}; {}", e.detail, queue);
      detail_said = true;
      break;
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
  if (!e.detail.empty() && !detail_said) text += " (" + e.detail + ")";
  // Free capacity that queues keep unlent of their guarantees is no room for it.
  if (e.limited_by_quota && e.reason != PendingReason::QueueAtLimit &&
      e.reason != PendingReason::Inadmissible)
    text += "; " + limitArithmetic(e, false);
  if (!e.variant.empty()) text += fmt::format(" (waiting for variant {})", e.variant);
  return fmt::format("{}: {}", pendingReasonName(e.reason), text);
}

}  // namespace troupe::queueing
