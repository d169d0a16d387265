#include "controllers/pending_status.h"

#include <string>

#include "controllers/resources.h"

namespace troupe::controllers {
namespace {

using Json = nlohmann::json;

// One amount of the resource in `slot`, as a quantity ("0" included).
std::string quantity(std::size_t slot, std::int64_t amount, const queueing::ResourceNames& names) {
  queueing::ResourceVector v;
  v[slot] = amount;
  const Json list = toResourceList(v, names);
  auto it = list.find(names.name(slot));
  return it == list.end() ? std::string("0") : it->get<std::string>();
}

// `e` with its resources named from the snapshot's table: the engine knows only the fixed
// slots by name, and an extended resource (a MIG slice, say) by its slot.
queueing::PendingExplanation named(queueing::PendingExplanation e,
                                   const queueing::ResourceNames& names) {
  const auto dominant = static_cast<std::size_t>(e.dominant_slot);
  if (dominant < names.size()) e.dominant_resource = names.name(dominant);
  const auto limit = static_cast<std::size_t>(e.limit_slot);
  if (e.limited_by_quota && limit < names.size()) e.limit_resource = names.name(limit);
  return e;
}

}  // namespace

Json renderPendingStatus(const queueing::PendingExplanation& engine_said,
                         const queueing::ResourceNames& names) {
  const queueing::PendingExplanation e = named(engine_said, names);
  auto amount = [&](std::int64_t v) {
    Json list = Json::object();
    if (!e.dominant_resource.empty() && v < queueing::ResourceVector::kUnlimited)
      list[e.dominant_resource] = std::to_string(v);
    return list;
  };
  Json pending{{"reason", queueing::pendingReasonName(e.reason)},
               {"message", queueing::describe(e)},
               {"queue", e.queue},
               {"request", toResourceList(e.request, names)},
               {"guaranteed", amount(e.queue_guaranteed)},
               {"allocated", amount(e.queue_allocated)},
               {"limit", amount(e.queue_limit)},
               {"fairShare", amount(e.queue_fair_share)}};
  // The GPUType it waits for, whose numbers these are (the variant the engine tried last).
  if (!e.variant.empty()) pending["gpuType"] = e.variant;
  const auto slot = static_cast<std::size_t>(e.limit_slot);
  if (e.limited_by_quota && slot < names.size()) {
    Json by{{"resource", names.name(slot)},
            {"holds", quantity(slot, e.limit_holds, names)},
            {"keptUnlent", quantity(slot, e.limit_kept, names)},
            {"request", quantity(slot, e.limit_asks, names)},
            {"limit", quantity(slot, e.limit_of, names)}};
    if (!e.limit_queue.empty()) by["queue"] = e.limit_queue;
    pending["limitedBy"] = std::move(by);
  }
  return pending;
}

}  // namespace troupe::controllers
