#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "common/clock.h"
#include "controllers/action_plan.h"
#include "kube/object_cache.h"

namespace troupe::kube {
class EventRecorder;
struct ResourceType;
}  // namespace troupe::kube

// The controllers' Kubernetes Events: what happened to a TrainingJob, a PodGroup or a
// pod, in core/v1 form, handed to the event recorder (best effort, never waited for).
namespace troupe::controllers {

class InformerCaches;

class EventWriter {
 public:
  EventWriter(kube::EventRecorder& recorder, InformerCaches& caches, const TimeSource& time);

  // An event about the object of `type` "ns/name" with `uid` (empty when unknown).
  void record(const kube::ResourceType& type, const std::string& ns, const std::string& name,
              const std::string& uid, const EventRecord& event);
  // An event about a gang goes to its TrainingJob when it has one, to a lone pod's pod
  // (whether its group is in the API or not), else to the PodGroup.
  void recordForGang(const EventRecord& event);

 private:
  // The lone pod whose group is `gang` "namespace/pod-<uid>", or null.
  kube::ObjectPtr lonePod(const std::string& gang) const;

  kube::EventRecorder& recorder_;
  InformerCaches& caches_;
  const TimeSource& time_;
  std::atomic<std::int64_t> counter_{0};  // makes event names unique within a second
};

}  // namespace troupe::controllers
