#include "controllers/pod_group_status.h"

#include <fmt/format.h>

#include "api/phases.h"
#include "api/well_known.h"
#include "common/check.h"
#include "controllers/conditions.h"
#include "controllers/first_status.h"
#include "controllers/object_json.h"

namespace troupe::controllers {

nlohmann::json computePodGroupStatus(const nlohmann::json& pg, const ObjectList& pods,
                                     std::int64_t now) {
  nlohmann::json status = pg.value("status", nlohmann::json::object());
  const auto generation = intAt(pg, "/metadata/generation", 0);
  std::int32_t scheduled = 0, running = 0, succeeded = 0, failed = 0, holding = 0;
  std::string gpu_type;  // the type its bound pods were placed on (one type a gang)
  for (const auto& p : pods) {
    auto phase = stringAt(p, "/status/phase");
    bool bound = !stringAt(p, "/spec/nodeName").empty();
    if (bound) ++scheduled;
    if (bound && gpu_type.empty()) gpu_type = annotation(p, api::kGpuTypeAnnotation);
    if (phase == "Running") ++running;
    if (phase == "Succeeded") ++succeeded;
    if (phase == "Failed") ++failed;
    if (bound && phase != "Succeeded" && phase != "Failed") ++holding;
  }
  status["scheduled"] = scheduled;
  status["running"] = running;
  status["succeeded"] = succeeded;
  status["failed"] = failed;
  status["observedGeneration"] = generation;
  if (!gpu_type.empty()) status["gpuType"] = gpu_type;
  const std::string old_phase = status.value("phase", "");
  if (old_phase == "Succeeded" || old_phase == "Failed") return status;
  const auto min_member = intAt(pg, "/spec/minMember", 1);
  const auto timeout = intAt(pg, "/spec/scheduleTimeoutSeconds", -1);
  const auto created = parseTimestamp(stringAt(pg, "/metadata/creationTimestamp")).value_or(now);
  const bool ever_admitted = conditionIsTrue(status, "Admitted") || scheduled > 0 ||
                             succeeded > 0 || (findCondition(status, "Admitted") != nullptr);
  std::string phase;
  if (failed > 0 && holding == 0) {
    phase = "Failed";
    setCondition(status, "Failed", true, "PodFailed", fmt::format("{} pods failed", failed), now,
                 generation);
  } else if (succeeded >= min_member && holding == 0) {
    phase = "Succeeded";
  } else if (!ever_admitted && timeout >= 0 && now >= created + timeout) {
    phase = "Failed";
    setCondition(status, "Failed", true, "ScheduleTimeout",
                 fmt::format("the gang did not fit within scheduleTimeoutSeconds ({})", timeout),
                 now, generation);
  } else if (running >= min_member) {
    phase = "Running";
  } else if (scheduled > 0) {
    phase = "Admitted";
  } else if (firstStatusWait(pg, now)) {
    // A new group's first status waits for its first scheduling decision
    // (controllers/first_status.h): its status stays as it is.
    return pg.value("status", nlohmann::json::object());
  } else {
    phase = "Pending";
  }
  TROUPE_CHECK(api::isListedPhase(api::kPodGroupPhases, phase),
               "PodGroup phase {} is not in api/phases.h", phase);
  status["phase"] = phase;
  if (scheduled > 0) setCondition(status, "Admitted", true, "Admitted", "", now, generation);
  return status;
}

}  // namespace troupe::controllers
