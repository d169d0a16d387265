#include "queueing/service_ranked_policy.h"

#include <algorithm>

#include "queueing/ranked_preemption.h"

namespace troupe::queueing {

bool ServiceRankedPolicy::before(GangId a, GangId b) const {
  if (keys_[a] != keys_[b]) return keys_[a] < keys_[b];
  const GangSpec& x = st_.gangs[a].spec;
  const GangSpec& y = st_.gangs[b].spec;
  if (x.submit_time != y.submit_time) return x.submit_time < y.submit_time;
  return x.name < y.name;
}

void ServiceRankedPolicy::pendingAdded(GangId g) {
  if (keys_.size() <= g) keys_.resize(std::max<std::size_t>(st_.gangs.size(), g + 1));
  // Evicted in the cycle under way: its run ends now.
  attained_.stopped(st_, g, st_.last_now);
  keys_[g] = rankKey(g, attained_.of(st_, g));
  pending_.insert(g);
}

void ServiceRankedPolicy::pendingRemoved(GangId g) { pending_.erase(g); }

void ServiceRankedPolicy::rekey(GangId g) {
  pending_.erase(g);
  keys_[g] = rankKey(g, attained_.of(st_, g));
  pending_.insert(g);
}

std::vector<GangId> ServiceRankedPolicy::runningGangs() const {
  std::vector<GangId> out;
  for (const QueueState& qs : st_.queues)
    out.insert(out.end(), qs.running.begin(), qs.running.end());
  return out;
}

void ServiceRankedPolicy::admit(CycleRun& run) {
  const Seconds now = run.now();
  attained_.advance(st_, now);
  beforeRanking(now);
  std::vector<GangId> running = runningGangs();
  if (keys_.size() < st_.gangs.size()) keys_.resize(st_.gangs.size());
  for (GangId g : running) keys_[g] = rankKey(g, attained_.of(st_, g));
  std::sort(running.begin(), running.end(), [&](GangId a, GangId b) { return before(a, b); });
  std::vector<GangId> order;
  order.reserve(running.size() + pending_.size());
  std::merge(running.begin(), running.end(), pending_.begin(), pending_.end(),
             std::back_inserter(order), [&](GangId a, GangId b) { return before(a, b); });
  runByRank(run, order);
  attained_.settle(st_, now);
  next_wakeup_ = nextKeyChange(now);
}

}  // namespace troupe::queueing
