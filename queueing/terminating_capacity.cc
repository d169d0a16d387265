#include "queueing/terminating_capacity.h"

#include "common/check.h"

namespace troupe::queueing {

void TerminatingCapacity::add(NodeId n, const HeldCapacity& pod) {
  Entry& e = by_node_[n];
  TROUPE_CHECK((e.held.gpus & pod.gpus) == 0, "node {} terminating GPUs {:x} counted twice", n,
               pod.gpus);
  e.held.requests += pod.requests;
  e.held.gpus |= pod.gpus;
  ++e.pods;
  ++version_;
}

void TerminatingCapacity::remove(NodeId n, const HeldCapacity& pod) {
  auto it = by_node_.find(n);
  TROUPE_CHECK(it != by_node_.end() && (it->second.held.gpus & pod.gpus) == pod.gpus,
               "node {} releases terminating GPUs {:x} it does not hold", n, pod.gpus);
  Entry& e = it->second;
  e.held.requests -= pod.requests;
  e.held.gpus &= ~pod.gpus;
  // A claim never exceeds what is held.
  e.claimed.requests = ResourceVector::min(e.claimed.requests, e.held.requests);
  e.claimed.gpus &= e.held.gpus;
  TROUPE_CHECK(!e.held.requests.anyNegative(), "node {} terminating capacity went negative", n);
  if (--e.pods == 0) by_node_.erase(it);
}

HeldCapacity TerminatingCapacity::unclaimed(NodeId n) const {
  auto it = by_node_.find(n);
  if (it == by_node_.end()) return {};
  const Entry& e = it->second;
  return HeldCapacity{e.held.requests - e.claimed.requests, e.held.gpus & ~e.claimed.gpus};
}

void TerminatingCapacity::claim(NodeId n, const HeldCapacity& part) {
  auto it = by_node_.find(n);
  TROUPE_CHECK(it != by_node_.end(), "node {} has no terminating capacity to claim", n);
  Entry& e = it->second;
  e.claimed.requests += part.requests;
  e.claimed.gpus |= part.gpus;
  TROUPE_CHECK(e.claimed.requests.fitsIn(e.held.requests) && (e.claimed.gpus & ~e.held.gpus) == 0,
               "node {} claims more terminating capacity than it holds", n);
}

void TerminatingCapacity::forgetClaims() {
  for (auto& [n, e] : by_node_) e.claimed = HeldCapacity{};
}

}  // namespace troupe::queueing
