#include "queueing/constraint_classes.h"

#include <algorithm>

namespace troupe::queueing {

ConstraintClasses::ConstraintClasses() {
  classes_.push_back(ConstraintClass{});
  ids_.emplace("", 0);
}

const std::string* labelValue(const Labels& labels, const std::string& key) {
  for (const auto& [k, v] : labels)
    if (k == key) return &v;
  return nullptr;
}

namespace {

const char* opName(SelectorOperator op) {
  switch (op) {
    case SelectorOperator::In: return "In";
    case SelectorOperator::NotIn: return "NotIn";
    case SelectorOperator::Exists: return "Exists";
    case SelectorOperator::DoesNotExist: return "DoesNotExist";
  }
  return "?";
}

// A canonical text of a shape's constraints: equal constraints give equal keys.
std::string constraintKey(const PodShape& shape) {
  if (shape.node_selector.empty() && shape.affinity.empty() && shape.tolerations.empty()) return "";
  std::string key;
  Labels sel = shape.node_selector;
  std::sort(sel.begin(), sel.end());
  for (const auto& [k, v] : sel) key += "s\x1f" + k + "\x1f" + v + "\x1e";
  std::vector<std::string> parts;
  for (const auto& req : shape.affinity) {
    std::vector<std::string> values = req.values;
    std::sort(values.begin(), values.end());
    std::string p = "a\x1f" + req.key + "\x1f" + opName(req.op);
    for (const auto& v : values) p += "\x1f" + v;
    parts.push_back(std::move(p));
  }
  for (const auto& t : shape.tolerations) {
    std::string p = "t\x1f" + t.key + "\x1f" + (t.op == TolerationOperator::Exists ? "E" : "=") +
                    "\x1f" + t.value + "\x1f" +
                    (t.effect ? std::to_string(static_cast<int>(*t.effect)) : "*");
    parts.push_back(std::move(p));
  }
  std::sort(parts.begin(), parts.end());
  for (const auto& p : parts) key += p + "\x1e";
  return key;
}

bool tolerates(const Toleration& t, const Taint& taint) {
  if (t.effect && *t.effect != taint.effect) return false;
  if (t.key.empty()) return t.op == TolerationOperator::Exists;
  if (t.key != taint.key) return false;
  return t.op == TolerationOperator::Exists || t.value == taint.value;
}

}  // namespace

bool nodeAllows(const NodeSpec& node, const PodShape& shape) {
  for (const auto& [k, v] : shape.node_selector) {
    const std::string* have = labelValue(node.labels, k);
    if (have == nullptr || *have != v) return false;
  }
  for (const auto& req : shape.affinity) {
    const std::string* have = labelValue(node.labels, req.key);
    const bool listed = have != nullptr &&
                        std::find(req.values.begin(), req.values.end(), *have) != req.values.end();
    switch (req.op) {
      case SelectorOperator::In:
        if (!listed) return false;
        break;
      case SelectorOperator::NotIn:
        if (listed) return false;
        break;
      case SelectorOperator::Exists:
        if (have == nullptr) return false;
        break;
      case SelectorOperator::DoesNotExist:
        if (have != nullptr) return false;
        break;
    }
  }
  for (const auto& taint : node.taints) {
    if (taint.effect == TaintEffect::PreferNoSchedule) continue;
    const bool ok = std::any_of(shape.tolerations.begin(), shape.tolerations.end(),
                                [&](const Toleration& t) { return tolerates(t, taint); });
    if (!ok) return false;
  }
  return true;
}

std::int32_t ConstraintClasses::classFor(const PodShape& shape) {
  std::string key = constraintKey(shape);
  auto it = ids_.find(key);
  if (it != ids_.end()) return it->second;
  const auto id = static_cast<std::int32_t>(classes_.size());
  ConstraintClass c;
  c.exemplar = shape;
  c.exemplar.requests = ResourceVector{};
  classes_.push_back(std::move(c));
  ids_.emplace(std::move(key), id);
  return id;
}

const ConstraintClass& ConstraintClasses::eligibility(std::int32_t cls,
                                                      const std::vector<NodeState>& nodes,
                                                      std::uint64_t epoch) {
  ConstraintClass& c = classes_[static_cast<std::size_t>(cls)];
  if (c.epoch == epoch) return c;
  c.epoch = epoch;
  c.eligible.clear();
  c.allows.assign(nodes.size(), 0);
  c.allows_every_usable = true;
  for (NodeId n = 0; n < nodes.size(); ++n) {
    if (!nodes[n].usable()) continue;
    if (!nodeAllows(nodes[n].spec, c.exemplar)) {
      c.allows_every_usable = false;
      continue;
    }
    c.allows[n] = 1;
    c.eligible.push_back(n);
  }
  // What explanations say of the nodes a gang may use: one pass over the eligible ones.
  c.largest_node = ResourceVector{};
  for (std::size_t l = 0; l < kMaxLevels; ++l) {
    c.largest_domain[l] = ResourceVector{};
    std::vector<ResourceVector> sums;
    for (NodeId n : c.eligible) {
      if (l == 0) c.largest_node = ResourceVector::max(c.largest_node, nodes[n].spec.allocatable);
      const std::int32_t d = nodes[n].domain[l];
      if (d < 0) continue;
      if (static_cast<std::size_t>(d) >= sums.size()) sums.resize(static_cast<std::size_t>(d) + 1);
      sums[static_cast<std::size_t>(d)] += nodes[n].spec.allocatable;
    }
    for (const ResourceVector& sum : sums)
      c.largest_domain[l] = ResourceVector::max(c.largest_domain[l], sum);
  }
  return c;
}

}  // namespace troupe::queueing
