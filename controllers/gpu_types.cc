#include "controllers/gpu_types.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "api/gpu_type.h"
#include "api/queue.h"
#include "api/validated.h"
#include "api/well_known.h"

namespace troupe::controllers {

namespace {

queueing::Toleration toEngine(const api::core::Toleration& t) {
  queueing::Toleration out;
  out.key = t.key;
  out.op = t.operator_ == "Exists" ? queueing::TolerationOperator::Exists
                                   : queueing::TolerationOperator::Equal;
  out.value = t.value;
  if (t.effect == "NoSchedule") out.effect = queueing::TaintEffect::NoSchedule;
  if (t.effect == "PreferNoSchedule") out.effect = queueing::TaintEffect::PreferNoSchedule;
  if (t.effect == "NoExecute") out.effect = queueing::TaintEffect::NoExecute;
  return out;
}

bool carries(const queueing::Labels& labels, const std::pair<std::string, std::string>& label) {
  return std::find(labels.begin(), labels.end(), label) != labels.end();
}

}  // namespace

GpuTypes GpuTypes::read(const ObjectList& objects,
                        std::vector<std::pair<std::string, Error>>& problems) {
  GpuTypes out;
  for (const auto& object : objects) {
    auto v = api::decodeAndValidate<api::GpuType>(object);
    if (!v.ok()) {
      problems.emplace_back(v.object.metadata.name, v.errors.front());
      continue;
    }
    GpuTypeFacts facts;
    facts.name = v.object.metadata.name;
    for (const auto& label : v.object.spec.node_labels) facts.node_labels.push_back(label);
    for (const auto& t : v.object.spec.tolerations) facts.tolerations.push_back(toEngine(t));
    out.types_.push_back(std::move(facts));
  }
  std::sort(out.types_.begin(), out.types_.end(),
            [](const GpuTypeFacts& a, const GpuTypeFacts& b) { return a.name < b.name; });
  return out;
}

const GpuTypeFacts* GpuTypes::find(const std::string& name) const {
  auto it =
      std::lower_bound(types_.begin(), types_.end(), name,
                       [](const GpuTypeFacts& t, const std::string& n) { return t.name < n; });
  return it != types_.end() && it->name == name ? &*it : nullptr;
}

const GpuTypeFacts* GpuTypes::ofNode(const queueing::Labels& labels) const {
  for (const auto& type : types_) {
    const bool all = std::all_of(type.node_labels.begin(), type.node_labels.end(),
                                 [&](const auto& label) { return carries(labels, label); });
    if (all) return &type;
  }
  return nullptr;
}

Result<std::vector<queueing::PodSet>> onGpuType(const std::vector<queueing::PodSet>& pod_sets,
                                                const GpuTypeFacts& type,
                                                queueing::ResourceNames& names) {
  const std::string resource = api::gpuTypeResource(type.name);
  const std::size_t slot = names.slotFor(resource);
  if (slot >= queueing::kMaxResources)
    return makeError(ErrorCode::Invalid, "spec.gpuTypes",
                     fmt::format("no resource slot left for {}: at most {} resources in all",
                                 resource, queueing::kMaxResources));
  std::vector<queueing::PodSet> out;
  out.reserve(pod_sets.size());
  for (const auto& set : pod_sets) {
    auto shape = std::make_shared<queueing::PodShape>(*set.shape);
    shape->requests[slot] = shape->requests[queueing::kGpu];
    for (const auto& label : type.node_labels) {
      auto same_key = std::find_if(shape->node_selector.begin(), shape->node_selector.end(),
                                   [&](const auto& l) { return l.first == label.first; });
      if (same_key == shape->node_selector.end()) {
        shape->node_selector.push_back(label);
      } else if (same_key->second != label.second) {
        // The pod's own selector asks for another value: no node of this type fits it, as
        // no node carries both; said by a label no node has.
        shape->node_selector.emplace_back(label.first + "/" + type.name, label.second);
      }
    }
    for (const auto& t : type.tolerations)
      if (std::find(shape->tolerations.begin(), shape->tolerations.end(), t) ==
          shape->tolerations.end())
        shape->tolerations.push_back(t);
    out.push_back({std::move(shape), set.count, set.min_count});
  }
  return out;
}

Result<std::vector<GpuTypeVariant>> gpuTypeVariants(const std::vector<queueing::PodSet>& pod_sets,
                                                    const std::vector<std::string>& accepted,
                                                    const GpuTypes& types,
                                                    queueing::ResourceNames& names) {
  std::vector<GpuTypeVariant> out;
  const bool asks_gpus = std::any_of(pod_sets.begin(), pod_sets.end(), [](const auto& set) {
    return set.shape && set.shape->requests[queueing::kGpu] > 0;
  });
  if (!asks_gpus || (accepted.empty() && types.empty())) return out;
  std::vector<GpuTypeFacts> order;
  if (accepted.empty()) {
    order = types.all();
  } else {
    for (const auto& name : accepted) {
      const GpuTypeFacts* type = types.find(name);
      order.push_back(type ? *type : GpuTypeFacts{name, {}, {}});
    }
  }
  for (const auto& type : order) {
    auto sets = onGpuType(pod_sets, type, names);
    if (!sets) return sets.error();
    out.push_back({type.name, std::move(*sets)});
  }
  return out;
}

Result<std::string> offerOnGpuTypes(queueing::GangSpec& spec,
                                    const std::vector<std::string>& accepted,
                                    const GangPlacement& placement, const GpuTypes& types,
                                    queueing::ResourceNames& names) {
  if (placement.running && placement.type == nullptr) return std::string();
  auto variants = gpuTypeVariants(spec.pod_sets, accepted, types, names);
  if (!variants) return variants.error();
  if (variants->empty()) return std::string();
  std::string first;
  if (placement.running) {
    auto sets = onGpuType(spec.pod_sets, *placement.type, names);
    if (!sets) return sets.error();
    spec.pod_sets = std::move(*sets);
    first = placement.type->name;
  } else {
    spec.pod_sets = std::move(variants->front().pod_sets);
    first = variants->front().type;
  }
  spec.variant = first;
  spec.alternatives.clear();
  for (auto& v : *variants)
    if (v.type != first) spec.alternatives.push_back({v.type, std::move(v.pod_sets)});
  return first;
}

void readGpuTypeFungibility(const nlohmann::json& queue, queueing::QueueSpec& spec) {
  const nlohmann::json fungibility =
      queue.value(nlohmann::json::json_pointer("/spec/gpuTypeFungibility"), nlohmann::json());
  if (!fungibility.is_object()) return;
  const std::string borrow = fungibility.value("whenCanBorrow", "");
  if (borrow == api::toString(api::WhenCanBorrow::Borrow))
    spec.when_borrowing = queueing::VariantFungibility::Stay;
  if (borrow == api::toString(api::WhenCanBorrow::TryNextType))
    spec.when_borrowing = queueing::VariantFungibility::TryNext;
  const std::string preempt = fungibility.value("whenCanPreempt", "");
  if (preempt == api::toString(api::WhenCanPreempt::Preempt))
    spec.when_preempting = queueing::VariantFungibility::Stay;
  if (preempt == api::toString(api::WhenCanPreempt::TryNextType))
    spec.when_preempting = queueing::VariantFungibility::TryNext;
}

}  // namespace troupe::controllers
