#include "api/core/priority_class.h"

#include "api/field_error.h"
#include "api/json_fields.h"

namespace troupe::api::core {

PriorityClass PriorityClass::fromJson(const nlohmann::json& object, std::vector<Error>& errors) {
  JsonFields f(errors);
  PriorityClass out;
  if (!object.is_object()) {
    f.typeError("<nil>", object, "object");
    return out;
  }
  out.metadata = ObjectMeta::fromJson(object.value("metadata", nlohmann::json()), errors);
  if (auto v = f.int32(object, "value", "value")) {
    out.value = *v;
  } else if (!object.contains("value")) {
    errors.push_back(required("value"));
  }
  out.global_default = f.boolean(object, "globalDefault", "globalDefault").value_or(false);
  out.preemption_policy =
      f.string(object, "preemptionPolicy", "preemptionPolicy").value_or("PreemptLowerPriority");
  if (out.preemption_policy != "PreemptLowerPriority" && out.preemption_policy != "Never") {
    errors.push_back(
        notSupported("preemptionPolicy", out.preemption_policy, {"PreemptLowerPriority", "Never"}));
  }
  return out;
}

}  // namespace troupe::api::core
