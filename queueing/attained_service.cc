#include "queueing/attained_service.h"

#include <algorithm>

namespace troupe::queueing {

AttainedService::Record& AttainedService::recordOf(const EngineState& st, GangId g) {
  if (records_.size() <= g) records_.resize(st.gangs.size() > g ? st.gangs.size() : g + 1);
  Record& r = records_[g];
  const GangState& gs = st.gangs[g];
  if (r.name != gs.spec.name) {
    r = Record{};
    r.name = gs.spec.name;
    r.waiting_since = gs.spec.submit_time;
  }
  return r;
}

const AttainedService::Record& AttainedService::of(const EngineState& st, GangId g) {
  return recordOf(st, g);
}

void AttainedService::advance(const EngineState& st, Seconds now) {
  const Seconds dt = std::max<Seconds>(0, now - last_);
  for (GangId g : running_) {
    const GangState& gs = st.gangs[g];
    Record& r = records_[g];
    // Removed (finished) since, or its id taken by another gang: nothing to count.
    if (!gs.present || !gs.running || r.name != gs.spec.name) continue;
    r.gpu_seconds += static_cast<double>(gs.held[kGpu]) * static_cast<double>(dt);
    r.run_seconds += dt;
  }
  last_ = std::max(last_, now);
}

void AttainedService::stopped(const EngineState& st, GangId g, Seconds now) {
  Record& r = recordOf(st, g);
  if (!r.running) return;
  r.running = false;
  r.last_run = now - r.last_start;
  r.waiting_since = now;
}

void AttainedService::settle(const EngineState& st, Seconds now) {
  // Those the cycle evicted.
  for (GangId g : running_) {
    const GangState& gs = st.gangs[g];
    if (gs.present && !gs.running && records_[g].name == gs.spec.name) stopped(st, g, now);
  }
  running_.clear();
  for (const QueueState& qs : st.queues)
    for (GangId g : qs.running) {
      Record& r = recordOf(st, g);
      if (!r.running) {
        r.running = true;
        r.last_start = now;
      }
      running_.push_back(g);
    }
  last_ = std::max(last_, now);
}

}  // namespace troupe::queueing
