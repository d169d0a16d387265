#include "controllers/operator_metrics.h"

namespace troupe::controllers {

void defineOperatorMetrics(MetricsRegistry& r) {
  r.defineGauge("troupe_queue_guaranteed", "Guaranteed quota of a queue, per resource.");
  r.defineGauge("troupe_queue_fair_share", "Fair share the last cycle computed for a queue.");
  r.defineGauge("troupe_queue_allocated", "Resources bound to pods of a queue's gangs.");
  r.defineGauge("troupe_queue_pending", "Resources requested by a queue's pending gangs.");
  r.defineCounter("troupe_admissions_total", "Gangs admitted and bound, by queue.");
  r.defineCounter("troupe_preemptions_total", "Gangs preempted, by queue and reason.");
  r.defineCounter("troupe_gang_restarts_total", "Whole-gang restarts after a pod failure.");
  const std::vector<double> waits = {1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600};
  r.defineHistogram("troupe_submission_to_admission_seconds",
                    "Time from a gang's submission to its admission.", waits);
  r.defineHistogram("troupe_submission_to_running_seconds",
                    "Time from a job's submission to all its pods running.", waits);
  r.defineHistogram("troupe_scheduling_cycle_duration_seconds",
                    "Duration of one scheduling cycle: snapshot, engine, actions.",
                    {0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5});
  r.defineGauge("troupe_leader", "1 while this replica leads.");
  r.defineGauge("troupe_caches_synced", "1 once every informer cache has synced.");
}

}  // namespace troupe::controllers
