#include "queueing/gang_state.h"

namespace troupe::queueing {

bool waitsForCapacity(PendingReason r) {
  switch (r) {
    case PendingReason::NoPlacement:
    case PendingReason::OverFairShare:
    case PendingReason::WaitingForReclaim:
    case PendingReason::BlockedByStarvingJob:
    case PendingReason::Reserved:
    case PendingReason::Preempted: return true;
    default: return false;
  }
}

}  // namespace troupe::queueing
