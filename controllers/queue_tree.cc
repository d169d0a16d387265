#include "controllers/queue_tree.h"

#include <fmt/format.h>

#include <set>

#include "api/quantity.h"
#include "controllers/object_json.h"

namespace troupe::controllers {

std::map<std::string, Error> validateQueueTree(const ObjectList& queues) {
  std::map<std::string, std::string> parent_of;
  std::map<std::string, const nlohmann::json*> by_name;
  for (const auto& q : queues) {
    parent_of[nameOf(q)] = stringAt(q, "/spec/parent");
    by_name[nameOf(q)] = &q;
  }
  std::map<std::string, Error> invalid;
  // Unknown parents and cycles: walk up from each queue.
  for (const auto& [name, parent] : parent_of) {
    std::set<std::string> seen{name};
    std::string cur = parent;
    while (!cur.empty()) {
      if (!parent_of.contains(cur)) {
        if (cur == parent) {
          invalid[name] = Error{ErrorCode::Invalid, "spec.parent",
                                fmt::format("Not found: queue \"{}\" does not exist", cur)};
        }
        break;
      }
      if (seen.contains(cur)) {
        if (cur == name) {
          invalid[name] = Error{ErrorCode::Invalid, "spec.parent",
                                fmt::format("Invalid value: \"{}\": the queue is its own "
                                            "ancestor (a cycle through {})",
                                            parent, name)};
        }
        break;
      }
      seen.insert(cur);
      cur = parent_of[cur];
    }
  }
  // Children's guaranteed within the parent's, per resource.
  std::map<std::string, std::map<std::string, std::int64_t>> children_sum;
  auto guaranteed = [](const nlohmann::json& q) {
    std::map<std::string, std::int64_t> out;
    const auto* res =
        q.contains("spec") && q["spec"].contains("resources") ? &q["spec"]["resources"] : nullptr;
    if (!res || !res->is_object()) return out;
    for (const auto& [r, quota] : res->items()) {
      if (!quota.is_object() || !quota.contains("guaranteed")) continue;
      auto v = api::Quantity::fromJson(quota["guaranteed"]);
      if (v) out[r] = v->milliValue();
    }
    return out;
  };
  for (const auto& [name, parent] : parent_of) {
    if (parent.empty() || !by_name.contains(parent)) continue;
    for (const auto& [r, v] : guaranteed(*by_name[name])) children_sum[parent][r] += v;
  }
  for (const auto& [parent, sums] : children_sum) {
    if (invalid.contains(parent)) continue;
    auto own = guaranteed(*by_name[parent]);
    for (const auto& [r, sum] : sums) {
      if (sum > own[r]) {
        invalid[parent] =
            Error{ErrorCode::Invalid, fmt::format("spec.resources[{}].guaranteed", r),
                  fmt::format("Invalid value: \"{}\": the children's guaranteed {} exceeds it",
                              api::Quantity::fromMilli(own[r]).toString(),
                              api::Quantity::fromMilli(sum).toString())};
        break;
      }
    }
  }
  // Below an invalid queue, every queue is invalid too.
  bool changed = true;
  while (changed) {
    changed = false;
    for (const auto& [name, parent] : parent_of) {
      if (invalid.contains(name) || parent.empty() || !invalid.contains(parent)) continue;
      invalid[name] = Error{ErrorCode::Invalid, "spec.parent",
                            fmt::format("Invalid value: \"{}\": the parent queue is invalid: {}",
                                        parent, invalid[parent].describe())};
      changed = true;
    }
  }
  return invalid;
}

}  // namespace troupe::controllers
