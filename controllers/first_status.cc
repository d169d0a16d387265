#include "controllers/first_status.h"

#include "controllers/object_json.h"

namespace troupe::controllers {

std::optional<std::int64_t> firstStatusWait(const nlohmann::json& object, std::int64_t now) {
  const auto status = object.find("status");
  if (status != object.end() && status->is_object() &&
      (!stringAt(*status, "/phase").empty() || status->contains("pending")))
    return std::nullopt;
  const auto created = parseTimestamp(stringAt(object, "/metadata/creationTimestamp"));
  // A clock behind the API server's (an operator in a cluster) would count the delay from a
  // time it has not reached, so such an object does not wait at all: the delay saves writes,
  // it must never hold a status back for long.
  if (!created || now < *created || now >= *created + kFirstStatusDelaySeconds) return std::nullopt;
  return *created + kFirstStatusDelaySeconds - now;
}

}  // namespace troupe::controllers
