#include "cli/pending_advice.h"

#include <fmt/format.h>

#include "cli/display_format.h"
#include "cli/queue_tree.h"

namespace troupe::cli {
namespace {

using json = nlohmann::json;

std::optional<double> in(const json& pending, const char* field, const std::string& resource) {
  auto it = pending.find(field);
  if (it == pending.end() || !it->is_object()) return std::nullopt;
  auto value = it->find(resource);
  if (value == it->end()) return std::nullopt;
  return quantityValue(*value);
}

}  // namespace

PendingNumbers pendingNumbers(const json& pending) {
  PendingNumbers n;
  n.reason = pending.value("reason", "");
  n.message = pending.value("message", "");
  n.queue = pending.value("queue", "");
  // The queue numbers are written in one resource, the gang's dominant one.
  for (const char* field : {"allocated", "guaranteed", "fairShare", "limit"}) {
    auto it = pending.find(field);
    if (it != pending.end() && it->is_object() && !it->empty()) {
      n.resource = it->begin().key();
      break;
    }
  }
  if (n.resource.empty()) n.resource = "nvidia.com/gpu";
  n.request = in(pending, "request", n.resource);
  n.allocated = in(pending, "allocated", n.resource);
  n.guaranteed = in(pending, "guaranteed", n.resource);
  n.fair_share = in(pending, "fairShare", n.resource);
  n.limit = in(pending, "limit", n.resource);
  if (auto by = pending.find("limitedBy"); by != pending.end() && by->is_object()) {
    n.limited = true;
    n.limited_queue = by->value("queue", "");
    n.limited_resource = by->value("resource", n.resource);
    auto amount = [&](const char* field) {
      auto it = by->find(field);
      return it == by->end() ? 0.0 : quantityValue(*it).value_or(0.0);
    };
    n.limited_holds = amount("holds");
    n.limited_kept = amount("keptUnlent");
    n.limited_request = amount("request");
    n.limited_limit = amount("limit");
  }
  return n;
}

namespace {

// "org: holds + request = 127 + 16 = 143 > limit 128", with what queues under it keep
// unlent when they keep any.
std::string limitedArithmetic(const PendingNumbers& n) {
  const std::string& r = n.limited_resource;
  const std::string who = n.limited_queue.empty() ? "the cluster" : n.limited_queue;
  const double total = n.limited_holds + n.limited_kept + n.limited_request;
  const std::string sum =
      n.limited_kept > 0
          ? fmt::format("holds + kept unlent + request = {} + {} + {} = {}",
                        amountText(r, n.limited_holds), amountText(r, n.limited_kept),
                        amountText(r, n.limited_request), amountText(r, total))
          : fmt::format("holds + request = {} + {} = {}", amountText(r, n.limited_holds),
                        amountText(r, n.limited_request), amountText(r, total));
  return fmt::format("{}: {} {} limit {}", who, sum,
                     total > n.limited_limit ? ">" : "<=", amountText(r, n.limited_limit));
}

}  // namespace

std::string pendingArithmetic(const PendingNumbers& n) {
  if (n.limited && (n.reason == "QueueAtLimit" || n.reason == "Inadmissible"))
    return limitedArithmetic(n);
  if (!n.allocated || !n.request) return "";
  const std::string& r = n.resource;
  const double total = *n.allocated + *n.request;
  const std::string sum =
      fmt::format("allocated + request = {} + {} = {}", amountText(r, *n.allocated),
                  amountText(r, *n.request), amountText(r, total));
  if (n.reason == "QueueAtLimit" && n.limit)
    return fmt::format("{} {} limit {}", sum,
                       total > *n.limit ? ">" : "<=", amountText(r, *n.limit));
  if ((n.reason == "OverFairShare" || n.reason == "WaitingForReclaim") && n.fair_share)
    return fmt::format("{} {} fair share {}", sum,
                       total > *n.fair_share ? ">" : "<=", amountText(r, *n.fair_share));
  return "";
}

std::vector<std::string> pendingRemedies(const PendingNumbers& n) {
  const std::string& r = n.resource;
  const std::string queue = n.queue.empty() ? "its queue" : "queue " + n.queue;
  const double total = n.allocated && n.request ? *n.allocated + *n.request : 0;
  std::vector<std::string> out;
  if (n.reason == "QueueAtLimit" && n.limited) {
    const std::string& lr = n.limited_resource;
    const std::string who =
        n.limited_queue.empty() ? std::string("the cluster") : "queue " + n.limited_queue;
    const double over = n.limited_holds + n.limited_kept + n.limited_request - n.limited_limit;
    out.push_back(fmt::format("{} {} of {}'s admitted gangs finishing or being removed",
                              amountText(lr, over), lr, who));
    if (!n.limited_queue.empty())
      out.push_back(fmt::format("a limit for {} of at least {} on {} (spec.resources.{}.limit)", lr,
                                amountText(lr, n.limited_limit + over), who, lr));
    out.push_back(
        "preemption becoming possible: the message says why no running gang may be taken");
  } else if (n.reason == "QueueAtLimit") {
    if (n.limit && total > *n.limit) {
      out.push_back(fmt::format("{} {} of {}'s admitted gangs finishing or being removed",
                                amountText(r, total - *n.limit), r, queue));
      out.push_back(
          fmt::format("a limit for {} of at least {} on {} (spec.resources.{}.limit), "
                      "and on any ancestor that limits it",
                      r, amountText(r, total), queue, r));
    } else {
      out.push_back(
          fmt::format("room under the limit of {} or of the ancestor that limits it "
                      "(the message names it)",
                      queue));
    }
  } else if (n.reason == "OverFairShare") {
    out.push_back(
        fmt::format("{} {} coming free without preemption (gangs of other queues finishing)",
                    n.request ? amountText(r, *n.request) : std::string("enough"), r));
    if (n.guaranteed && total > *n.guaranteed)
      out.push_back(fmt::format(
          "a guarantee for {} of at least {} on {}, so that it may take it back by preemption", r,
          amountText(r, total), queue));
    out.push_back(
        fmt::format("a higher spec.resources.{}.overQuotaWeight on {}, for a larger "
                    "fair share of what is idle",
                    r, queue));
  } else if (n.reason == "NoPlacement") {
    out.push_back(
        "running pods finishing on the nodes its pods may use (`kubectl troupe top` "
        "shows who holds the GPUs)");
    out.push_back(
        "more nodes, or fewer or smaller pods (a lower spec.minReplicas lets an "
        "elastic job start smaller)");
  } else if (n.reason == "Inadmissible") {
    if (n.limited && !n.limited_queue.empty())
      out.push_back(fmt::format(
          "a limit for {} of at least {} on queue {} (spec.resources.{}.limit), or a smaller "
          "job: nothing running is in its way",
          n.limited_resource, amountText(n.limited_resource, n.limited_kept + n.limited_request),
          n.limited_queue, n.limited_resource));
    else if (n.limited)
      out.push_back("more nodes, or a smaller job: it is larger than the cluster");
    else
      out.push_back(
          "a pod that some node could hold, or a topology domain that can hold the gang: "
          "its nodeSelector, affinity, tolerations, requests and spec.topology against the "
          "nodes' labels, taints and allocatable");
  } else if (n.reason == "TopologyUnsatisfiable") {
    out.push_back(
        "running pods finishing in one domain of its spec.topology.level (`kubectl troupe "
        "top` shows who holds the GPUs)");
    out.push_back(
        "spec.topology.mode: Preferred, a wider spec.topology.level, or fewer pods, "
        "so that more domains can hold the gang");
  } else if (n.reason == "WaitingForReclaim") {
    out.push_back(
        "the rule in the message ceasing to apply (a victim passing its queue's "
        "minRuntimeSeconds, a protected job finishing), or capacity coming free");
  } else if (n.reason == "BlockedByStarvingJob") {
    out.push_back("the starving gang the message names being admitted first; it runs after");
  } else if (n.reason == "BlockedByQueueHead") {
    out.push_back(
        "the gang at the head of the line (the message names it) being admitted: "
        "the fifo policy admits in order");
  } else if (n.reason == "Reserved") {
    out.push_back("nothing: it is starving, so capacity is held for it as it frees");
  } else if (n.reason == "Preempted") {
    out.push_back(
        "nothing: it was preempted and is placed again, at its old place in line, "
        "when room frees");
  } else if (n.reason == "QueueNotFound") {
    out.push_back(
        "a leaf Queue of the name in spec.queue (kubectl get queues), or a "
        "spec.queue that names one");
  } else if (n.reason == "InvalidGang") {
    out.push_back("a spec that keeps the rule the message names");
  }
  return out;
}

}  // namespace troupe::cli
