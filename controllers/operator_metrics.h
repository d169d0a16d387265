#pragma once

#include "common/metrics_registry.h"

namespace troupe::controllers {

// The operator's metric families (docs/operator.md lists them), defined on `registry`.
// Per queue and resource: troupe_queue_{guaranteed,fair_share,allocated,pending};
// counters troupe_admissions_total, troupe_preemptions_total, troupe_gang_restarts_total;
// histograms troupe_submission_to_admission_seconds, troupe_submission_to_running_seconds,
// troupe_scheduling_cycle_duration_seconds; gauges troupe_leader, troupe_caches_synced.
void defineOperatorMetrics(MetricsRegistry& registry);

}  // namespace troupe::controllers
