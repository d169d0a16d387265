#include "controllers/queue_tree.h"

#include "api/queue.h"
#include "api/validated.h"

namespace troupe::controllers {

admission::QueueForest queueForest(const ObjectList& queues) {
  std::vector<api::Validated<api::Queue>> decoded;
  decoded.reserve(queues.size());
  for (const auto& q : queues) decoded.push_back(api::decodeAndValidate<api::Queue>(q));
  return admission::QueueForest(std::move(decoded));
}

}  // namespace troupe::controllers
