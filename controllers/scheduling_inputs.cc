#include "controllers/scheduling_inputs.h"

#include <string>
#include <string_view>

#include "api/well_known.h"

namespace troupe::controllers {
namespace {

using Json = nlohmann::json;

// The member `key` of `object`, or null.
const Json& member(const Json& object, const char* key) {
  static const Json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

bool sameMember(const Json& a, const Json& b, const char* section, const char* key) {
  return member(member(a, section), key) == member(member(b, section), key);
}

bool terminal(const Json& object) {
  const Json& phase = member(member(object, "status"), "phase");
  return phase == "Succeeded" || phase == "Failed";
}

// The annotations of `object` but `ignored`; null when there are no others.
Json annotationsBut(const Json& object, std::string_view ignored) {
  Json annotations = member(member(object, "metadata"), "annotations");
  if (annotations.is_object()) annotations.erase(std::string(ignored));
  return annotations.empty() ? Json() : annotations;
}

// The common part: labels, annotations (but `ignored`), deletion, spec, terminal phase.
bool metadataOrSpecDiffers(const Json& before, const Json& after, std::string_view ignored = {}) {
  const bool annotations_differ =
      ignored.empty() ? !sameMember(before, after, "metadata", "annotations")
                      : annotationsBut(before, ignored) != annotationsBut(after, ignored);
  return !sameMember(before, after, "metadata", "labels") || annotations_differ ||
         !sameMember(before, after, "metadata", "deletionTimestamp") ||
         member(before, "spec") != member(after, "spec") || terminal(before) != terminal(after);
}

std::string readyStatus(const Json& node) {
  const Json& conditions = member(member(node, "status"), "conditions");
  if (!conditions.is_array()) return {};
  for (const auto& c : conditions)
    if (member(c, "type") == "Ready")
      return member(c, "status").is_string() ? member(c, "status").get<std::string>() : "";
  return {};
}

}  // namespace

bool podUpdateMatters(const Json& before, const Json& after) {
  return metadataOrSpecDiffers(before, after);
}

bool podGroupUpdateMatters(const Json& before, const Json& after) {
  return metadataOrSpecDiffers(before, after);
}

bool nodeUpdateMatters(const Json& before, const Json& after) {
  return metadataOrSpecDiffers(before, after, api::kGpuHoldersAnnotation) ||
         !sameMember(before, after, "status", "allocatable") ||
         readyStatus(before) != readyStatus(after);
}

bool queueUpdateMatters(const Json& before, const Json& after) {
  return member(before, "spec") != member(after, "spec") ||
         !sameMember(before, after, "metadata", "deletionTimestamp");
}

}  // namespace troupe::controllers
