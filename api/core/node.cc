#include "api/core/node.h"

#include "api/field_error.h"
#include "api/json_fields.h"
#include "api/well_known.h"

namespace troupe::api::core {

using nlohmann::json;

Node Node::fromJson(const json& node, std::vector<Error>& errors) {
  JsonFields f(errors);
  Node out;
  if (!node.is_object()) {
    f.typeError("<nil>", node, "object");
    return out;
  }
  out.metadata = ObjectMeta::fromJson(node.value("metadata", json()), errors);
  if (const json* spec = f.object(node, "spec", "spec")) {
    out.unschedulable = f.boolean(*spec, "unschedulable", "spec.unschedulable").value_or(false);
    if (const json* taints = f.array(*spec, "taints", "spec.taints")) {
      for (size_t i = 0; i < taints->size(); ++i) {
        const json& t = (*taints)[i];
        std::string p = indexPath("spec.taints", i);
        if (!t.is_object()) {
          f.typeError(p, t, "object");
          continue;
        }
        Taint taint;
        taint.key = f.string(t, "key", p + ".key").value_or("");
        taint.value = f.string(t, "value", p + ".value").value_or("");
        taint.effect = f.string(t, "effect", p + ".effect").value_or("");
        out.taints.push_back(std::move(taint));
      }
    }
  }
  if (const json* status = f.object(node, "status", "status")) {
    out.capacity = f.resourceMap(*status, "capacity", "status.capacity");
    out.allocatable = f.resourceMap(*status, "allocatable", "status.allocatable");
    out.conditions = Condition::listFromJson(*status, "status.conditions", errors);
  }
  return out;
}

bool Node::isReady() const {
  const Condition* ready = findCondition(conditions, "Ready");
  return ready != nullptr && ready->status == "True";
}

std::optional<Result<GpuTopology>> Node::gpuTopology() const {
  auto it = metadata.annotations.find(std::string(kGpuTopologyAnnotation));
  if (it == metadata.annotations.end()) return std::nullopt;
  return parseGpuTopology(it->second, keyPath("metadata.annotations", kGpuTopologyAnnotation));
}

std::string Node::label(const std::string& key) const {
  auto it = metadata.labels.find(key);
  return it == metadata.labels.end() ? std::string() : it->second;
}

}  // namespace troupe::api::core
