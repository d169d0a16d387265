#include "controllers/decayed_usage.h"

#include <set>
#include <vector>

#include "common/log.h"
#include "controllers/cluster_writer.h"
#include "controllers/object_json.h"
#include "kube/resource_type.h"
#include "queueing/usage.h"
#include "state/state_store.h"

namespace troupe::controllers {

DecayedUsage::DecayedUsage(state::StateStore& state, ClusterWriter& writer,
                           std::chrono::seconds mirror_interval)
    : state_(state), writer_(writer), mirror_interval_(mirror_interval) {}

void DecayedUsage::load(state::UsageHistory& history, const ObjectList& queues, std::int64_t now) {
  auto local = history.load();
  if (!local)
    log::warn("usage history read failed; usage starts from the Queues' annotations",
              {{"error", local.error().describe()}});
  usage_ = local ? *local : std::map<std::string, state::QueueUsage>{};
  for (const auto& q : queues) {
    auto text = annotation(q, state::kDecayedUsageAnnotation);
    if (text.empty()) continue;
    auto mirrored = state::decodeUsageAnnotation(text);
    if (!mirrored) continue;
    auto& mine = usage_[nameOf(q)];
    mine = state::newerOf(mine, *mirrored);
  }
  last_advance_ = now;
}

std::map<std::string, std::map<std::string, std::int64_t>> DecayedUsage::byQueue() const {
  std::map<std::string, std::map<std::string, std::int64_t>> out;
  for (const auto& [q, u] : usage_) out[q] = u.usage;
  return out;
}

void DecayedUsage::advance(const queueing::Engine& engine, const ClusterSnapshot& cluster,
                           const std::map<std::string, queueing::ResourceVector>& allocated,
                           const ObjectList& queues, std::int64_t t) {
  const auto elapsed = t - last_advance_;
  if (elapsed <= 0) return;
  last_advance_ = t;
  queueing::Policy policy;
  std::vector<std::string> changed;
  for (const auto& spec : cluster.snapshot.queues) {
    auto computed = engine.queueStatus(spec.name);
    if (!computed) continue;
    if (auto it = allocated.find(spec.name); it != allocated.end())
      computed->allocated = it->second;
    auto& u = usage_[spec.name];
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
  auto saved = state_.transaction([&]() -> Status {
    for (const auto& q : changed)
      if (auto s = state_.usageHistory().save(q, usage_[q]); !s) return s;
    return {};
  });
  if (!saved) log::warn("usage history write failed", {{"error", saved.error().describe()}});
  if (t - last_mirror_ >= mirror_interval_.count()) mirror(queues, t);
}

void DecayedUsage::mirror(const ObjectList& queues, std::int64_t t) {
  std::set<std::string> present;
  for (const auto& q : queues) present.insert(nameOf(q));
  for (const auto& [q, u] : usage_) {
    if (!present.contains(q)) continue;
    // The interval counts from the first mirror with a queue to write, so a new leader's
    // first usage reaches the Queues at once rather than an interval later.
    last_mirror_ = t;
    auto r =
        writer_.annotate(kube::resources::kQueues, "", q,
                         Json{{state::kDecayedUsageAnnotation, state::encodeUsageAnnotation(u)}});
    if (!r) log::debug("usage mirror failed", {{"queue", q}, {"error", r.error().describe()}});
  }
}

}  // namespace troupe::controllers
