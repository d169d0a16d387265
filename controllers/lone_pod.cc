#include "controllers/lone_pod.h"

#include <fmt/format.h>

#include "api/well_known.h"
#include "controllers/annotations.h"
#include "controllers/object_json.h"

namespace troupe::controllers {

namespace {
bool schedulesWithTroupe(const Json& pod) {
  return stringAt(pod, "/spec/schedulerName") == api::kSchedulerName;
}
}  // namespace

std::string lonePodGroupName(const std::string& pod_uid) { return "pod-" + pod_uid; }

std::string podGroupName(const Json& pod) {
  if (!schedulesWithTroupe(pod)) return "";
  auto group = label(pod, api::kPodGroupLabel);
  if (!group.empty()) return group;
  auto uid = stringAt(pod, "/metadata/uid");
  return uid.empty() ? "" : lonePodGroupName(uid);
}

Result<Json> lonePodGroup(const Json& pod) {
  const auto queue = label(pod, api::kQueueLabel);
  if (queue.empty()) {
    return Error{ErrorCode::Invalid, fmt::format("metadata.labels[{}]", api::kQueueLabel),
                 fmt::format("Required value: a pod with spec.schedulerName {} and no {} label "
                             "is a gang of its own and must name its queue",
                             api::kSchedulerName, api::kPodGroupLabel)};
  }
  // A pod as a list item may lack its kind; the reference names it anyway.
  Json owner = ownerReference(pod);
  owner["apiVersion"] = "v1";
  owner["kind"] = "Pod";
  Json spec{{"minMember", 1}, {"queue", queue}};
  if (auto cls = stringAt(pod, "/spec/priorityClassName"); !cls.empty())
    spec["priorityClassName"] = cls;
  Json metadata{{"name", lonePodGroupName(stringAt(pod, "/metadata/uid"))},
                {"namespace", namespaceOf(pod)},
                {"ownerReferences", Json::array({owner})}};
  // The pod's wait starts when the pod was made, not when its group is written.
  if (auto created = parseTimestamp(stringAt(pod, "/metadata/creationTimestamp")))
    metadata["annotations"] = {{std::string(kSubmittedAtAnnotation), std::to_string(*created)}};
  return Json{{"apiVersion", std::string(api::kApiVersion)},
              {"kind", std::string(api::kPodGroupKind)},
              {"metadata", std::move(metadata)},
              {"spec", spec}};
}

}  // namespace troupe::controllers
