#include "controllers/queue_status.h"

#include "api/well_known.h"
#include "controllers/conditions.h"
#include "controllers/object_json.h"
#include "controllers/resources.h"

namespace troupe::controllers {

nlohmann::json renderQueueStatus(const nlohmann::json& queue,
                                 const std::optional<queueing::QueueStatus>& computed,
                                 const queueing::ResourceNames& names, const QueueCounts& counts,
                                 const admission::QueueProblem* problem, std::int64_t now) {
  nlohmann::json status = queue.value("status", nlohmann::json::object());
  const auto generation = intAt(queue, "/metadata/generation", 0);
  status["observedGeneration"] = generation;
  status["allocated"] =
      computed ? toResourceList(computed->allocated, names) : nlohmann::json::object();
  status["fairShare"] =
      computed ? toResourceList(computed->fair_share, names) : nlohmann::json::object();
  status["pending"] = counts.pending;
  status["inadmissible"] = counts.inadmissible;
  status["admitted"] = counts.admitted;
  status["running"] = counts.running;
  if (problem != nullptr) {
    setCondition(status, std::string(api::kConditionReady), false, problem->reason,
                 problem->error.describe(), now, generation);
  } else {
    setCondition(status, std::string(api::kConditionReady), true, "Ready", "", now, generation);
  }
  // The condition this one replaced.
  if (auto c = status.find("conditions"); c != status.end() && c->is_array()) {
    auto& list = *c;
    for (auto it = list.begin(); it != list.end();)
      it = it->value("type", "") == "Valid" ? list.erase(it) : std::next(it);
  }
  return status;
}

}  // namespace troupe::controllers
