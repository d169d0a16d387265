#pragma once

#include "queueing/ids.h"

namespace troupe::queueing {

// Told when a gang starts or stops waiting in a leaf queue (EngineState calls it on
// submit, admission, eviction and removal), for a scheduling policy that keeps an order of
// its own over the pending gangs of every queue, as the Mesos allocator tells its sorters
// of the clients it adds and removes.
class PendingObserver {
 public:
  virtual ~PendingObserver() = default;
  virtual void pendingAdded(GangId g) = 0;
  virtual void pendingRemoved(GangId g) = 0;
};

}  // namespace troupe::queueing
