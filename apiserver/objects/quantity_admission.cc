#include "apiserver/objects/quantity_admission.h"

#include "api/core/container_resources.h"
#include "api/field_error.h"
#include "api/quantity.h"
#include "common/json_member.h"

namespace troupe::apiserver {

namespace {

using json = nlohmann::json;

Cause toCause(const Error& error) {
  return Cause{api::causeReason(api::fieldErrorType(error)), error.message, error.field_path};
}

// A quota: a quantity of at least 0.
void checkQuota(const json& value, const std::string& field, std::vector<Cause>& causes) {
  if (value.is_null()) return;
  auto quantity = api::Quantity::fromJson(value, field);
  if (!quantity) {
    causes.push_back(toCause(quantity.error()));
  } else if (quantity->isNegative()) {
    causes.push_back(
        toCause(api::invalid(field, quantity->toString(), "must be greater than or equal to 0")));
  }
}

}  // namespace

std::vector<Cause> checkQuantities(const ResourceKind& kind, const json& object) {
  std::vector<Cause> causes;
  if (!object.is_object()) return causes;
  const json& spec = objectMember(object, "spec");
  auto add = [&](const std::vector<Error>& errors) {
    for (const auto& e : errors) causes.push_back(toCause(e));
  };
  if (kind.group.empty() && kind.kind == "Pod") {
    add(api::core::validateContainerResources(spec, "spec"));
  } else if (kind.group == "troupe.dev" && kind.kind == "TrainingJob") {
    add(api::core::validateContainerResources(objectMember(objectMember(spec, "template"), "spec"),
                                              "spec.template.spec"));
  } else if (kind.group == "troupe.dev" && kind.kind == "PodGroup") {
    const json& min = objectMember(spec, "minResources");
    if (min.is_object())
      for (const auto& [name, value] : min.items())
        checkQuota(value, api::keyPath("spec.minResources", name), causes);
  } else if (kind.group == "troupe.dev" && kind.kind == "Queue") {
    const json& resources = objectMember(spec, "resources");
    if (resources.is_object()) {
      for (const auto& [name, quota] : resources.items()) {
        if (!quota.is_object()) continue;
        const std::string path = api::keyPath("spec.resources", name);
        for (const char* field : {"guaranteed", "limit", "lendingLimit", "overQuotaWeight"})
          if (quota.contains(field)) checkQuota(quota[field], api::childPath(path, field), causes);
      }
    }
  }
  return causes;
}

}  // namespace troupe::apiserver
