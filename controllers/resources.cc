#include "controllers/resources.h"

#include <fmt/format.h>

#include "api/quantity.h"
#include "api/well_known.h"
#include "common/json_member.h"

namespace troupe::controllers {

using queueing::ResourceVector;

Result<ResourceVector> toResourceVector(const nlohmann::json& list, queueing::ResourceNames& names,
                                        std::string_view field) {
  ResourceVector out;
  if (list.is_null()) return out;
  if (!list.is_object()) {
    return makeError(ErrorCode::Invalid, std::string(field), "must be a map of quantities");
  }
  for (const auto& [name, value] : list.items()) {
    if (name == "pods") continue;
    std::string item_field = fmt::format("{}[{}]", field, name);
    auto q = api::Quantity::fromJson(value, item_field);
    if (!q) return q.error();
    if (q->isNegative()) {
      return makeError(ErrorCode::Invalid, item_field, "must be greater than or equal to 0");
    }
    std::size_t slot = names.slotFor(name);
    if (slot == queueing::kMaxResources) {
      return makeError(
          ErrorCode::Invalid, item_field,
          fmt::format("Troupe tracks at most {} resource names", queueing::kMaxResources));
    }
    out[slot] = slot == queueing::kCpu ? q->milliValue() : q->value();
  }
  return out;
}

nlohmann::json toResourceList(const ResourceVector& vector, const queueing::ResourceNames& names) {
  auto out = nlohmann::json::object();
  for (std::size_t slot = 0; slot < names.size(); ++slot) {
    std::int64_t q = vector[slot];
    if (q == 0 || q >= ResourceVector::kUnlimited) continue;
    if (slot == queueing::kCpu) {
      out[names.name(slot)] = api::Quantity::fromMilli(q).toString();
    } else {
      auto quantity =
          api::Quantity::fromUnits(q, slot == queueing::kMemory ? api::Quantity::Format::BinarySI
                                                                : api::Quantity::Format::DecimalSI);
      out[names.name(slot)] = quantity ? quantity->toString() : std::to_string(q);
    }
  }
  // GPUs as the thousandths count them, so that pods asking fractions of one GPU show:
  // 1.5 GPUs is "1500m".
  for (std::size_t slot = queueing::kFirstExtended; slot < names.size(); ++slot) {
    const std::int64_t milli = vector[slot];
    if (names.name(slot) != api::kGpuMilliResource || milli <= 0 ||
        milli >= ResourceVector::kUnlimited)
      continue;
    out[std::string(api::kGpuResource)] = api::Quantity::fromMilli(milli).toString();
  }
  return out;
}

Result<ResourceVector> podRequests(const nlohmann::json& pod, queueing::ResourceNames& names) {
  const nlohmann::json& spec = objectMember(pod, "spec");
  auto containerRequests = [&](const nlohmann::json& c,
                               const std::string& field) -> Result<ResourceVector> {
    const nlohmann::json& res = objectMember(c, "resources");
    auto limits =
        toResourceVector(res.value("limits", nlohmann::json()), names, field + ".resources.limits");
    if (!limits) return limits.error();
    auto requests = toResourceVector(res.value("requests", nlohmann::json()), names,
                                     field + ".resources.requests");
    if (!requests) return requests.error();
    ResourceVector out = *requests;
    const nlohmann::json& req_list = objectMember(res, "requests");
    for (std::size_t slot = 0; slot < names.size(); ++slot) {
      bool requested = req_list.is_object() && req_list.contains(names.name(slot));
      if (!requested) out[slot] = (*limits)[slot];
    }
    return out;
  };
  ResourceVector sum;
  if (spec.contains("containers") && spec["containers"].is_array()) {
    for (std::size_t i = 0; i < spec["containers"].size(); ++i) {
      auto r = containerRequests(spec["containers"][i], fmt::format("spec.containers[{}]", i));
      if (!r) return r.error();
      sum += *r;
    }
  }
  if (spec.contains("initContainers") && spec["initContainers"].is_array()) {
    for (std::size_t i = 0; i < spec["initContainers"].size(); ++i) {
      auto r =
          containerRequests(spec["initContainers"][i], fmt::format("spec.initContainers[{}]", i));
      if (!r) return r.error();
      sum = ResourceVector::max(sum, *r);
    }
  }
  if (spec.contains("overhead")) {
    auto overhead = toResourceVector(spec["overhead"], names, "spec.overhead");
    if (!overhead) return overhead.error();
    sum += *overhead;
  }
  return sum;
}

}  // namespace troupe::controllers
