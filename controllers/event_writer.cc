#include "controllers/event_writer.h"

#include <fmt/format.h>

#include "api/well_known.h"
#include "controllers/informer_caches.h"
#include "controllers/object_json.h"
#include "kube/event_recorder.h"
#include "kube/resource_type.h"

namespace troupe::controllers {
namespace {

namespace res = kube::resources;

// The uid of the object "ns/name" in `informer`'s cache, or "".
std::string uidIn(const kube::Informer& informer, const std::string& ns, const std::string& name) {
  auto object = informer.cache().get(ns + "/" + name);
  return object ? stringAt(*object, "/metadata/uid") : "";
}

}  // namespace

EventWriter::EventWriter(kube::EventRecorder& recorder, InformerCaches& caches,
                         const TimeSource& time)
    : recorder_(recorder), caches_(caches), time_(time) {}

void EventWriter::record(const kube::ResourceType& type, const std::string& ns,
                         const std::string& name, const std::string& uid, const EventRecord& e) {
  const auto now = epochSeconds(time_.now());
  auto ts = formatTimestamp(now);
  Json event{
      {"apiVersion", "v1"},
      {"kind", "Event"},
      {"metadata",
       {{"name", fmt::format("{}.{:x}{:04x}", name, now, ++counter_ % 0xffff)}, {"namespace", ns}}},
      {"involvedObject",
       {{"apiVersion", type.apiVersion()},
        {"kind", type.kind},
        {"name", name},
        {"namespace", ns},
        {"uid", uid}}},
      {"reason", e.reason},
      {"message", e.message},
      {"type", e.type},
      {"count", 1},
      {"firstTimestamp", ts},
      {"lastTimestamp", ts},
      {"source", {{"component", "troupe-operator"}}},
      {"reportingComponent", "troupe-operator"}};
  recorder_.record(std::move(event));
}

kube::ObjectPtr EventWriter::lonePod(const std::string& gang) const {
  auto pods = caches_.podsOfGroup(gang);
  if (pods.size() != 1 || !label(*pods[0], api::kPodGroupLabel).empty()) return nullptr;
  return pods[0];
}

void EventWriter::recordForGang(const EventRecord& e) {
  auto slash = e.gang.find('/');
  std::string ns = e.gang.substr(0, slash), name = e.gang.substr(slash + 1);
  auto pg = caches_.podGroups().cache().get(e.gang);
  auto owner = pg ? controllerOf(*pg) : std::nullopt;
  if (owner && owner->kind == api::kTrainingJobKind) {
    record(res::kTrainingJobs, ns, owner->name, uidIn(caches_.trainingJobs(), ns, owner->name), e);
  } else if (owner && owner->kind == "Pod") {  // a lone pod's own group
    record(res::kPods, ns, owner->name, uidIn(caches_.pods(), ns, owner->name), e);
  } else if (auto pod = pg ? nullptr : lonePod(e.gang)) {  // its group not in the API
    record(res::kPods, ns, nameOf(*pod), stringAt(*pod, "/metadata/uid"), e);
  } else {
    record(res::kPodGroups, ns, name, pg ? stringAt(*pg, "/metadata/uid") : "", e);
  }
}

}  // namespace troupe::controllers
