#include "controllers/queue_status.h"

#include "controllers/conditions.h"
#include "controllers/object_json.h"
#include "controllers/resources.h"

namespace troupe::controllers {

nlohmann::json renderQueueStatus(const nlohmann::json& queue,
                                 const std::optional<queueing::QueueStatus>& computed,
                                 const queueing::ResourceNames& names, const QueueCounts& counts,
                                 const std::optional<Error>& invalid, std::int64_t now) {
  nlohmann::json status = queue.value("status", nlohmann::json::object());
  const auto generation = intAt(queue, "/metadata/generation", 0);
  status["observedGeneration"] = generation;
  status["allocated"] =
      computed ? toResourceList(computed->allocated, names) : nlohmann::json::object();
  status["fairShare"] =
      computed ? toResourceList(computed->fair_share, names) : nlohmann::json::object();
  status["pending"] = counts.pending;
  status["admitted"] = counts.admitted;
  status["running"] = counts.running;
  if (invalid) {
    setCondition(status, "Valid", false, "InvalidQueueTree", invalid->describe(), now, generation);
  } else {
    setCondition(status, "Valid", true, "Valid", "", now, generation);
  }
  return status;
}

}  // namespace troupe::controllers
