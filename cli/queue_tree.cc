#include "cli/queue_tree.h"

#include <algorithm>
#include <map>

#include "api/quantity.h"

namespace troupe::cli {
namespace {

using json = nlohmann::json;

const json& at(const json& object, const char* key) {
  static const json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

}  // namespace

std::optional<double> quantityValue(const json& value) {
  if (value.is_null()) return std::nullopt;
  auto q = api::Quantity::fromJson(value);
  if (!q) return std::nullopt;
  return static_cast<double>(q->milliValue()) / 1000.0;
}

QueueQuota quotaOf(const json& queue, const std::string& resource) {
  const json& spec = at(at(at(queue, "spec"), "resources"), resource.c_str());
  const json& status = at(queue, "status");
  QueueQuota q;
  q.guaranteed = quantityValue(at(spec, "guaranteed")).value_or(0);
  q.limit = quantityValue(at(spec, "limit"));
  q.lending_limit = quantityValue(at(spec, "lendingLimit"));
  q.fair_share = quantityValue(at(at(status, "fairShare"), resource.c_str())).value_or(0);
  q.allocated = quantityValue(at(at(status, "allocated"), resource.c_str())).value_or(0);
  return q;
}

QueueTree queueTree(const std::vector<json>& queues) {
  std::map<std::string, const json*> by_name;
  for (const auto& q : queues) by_name[q["metadata"].value("name", "")] = &q;
  // Children by name (std::map keeps them sorted; names are unique).
  std::map<std::string, std::vector<const json*>> children;
  std::vector<const json*> roots;
  for (const auto& [name, q] : by_name) {
    std::string parent = at(at(*q, "spec"), "parent").is_string()
                             ? at(at(*q, "spec"), "parent").get<std::string>()
                             : "";
    if (!parent.empty() && by_name.count(parent))
      children[parent].push_back(q);
    else
      roots.push_back(q);
  }
  QueueTree tree;
  tree.families.push_back(roots);
  for (const auto& [parent, list] : children) tree.families.push_back(list);
  std::vector<bool> last;
  auto visit = [&](auto& self, const json* q, int depth, bool is_last) -> void {
    last.push_back(is_last);
    const std::string name = (*q)["metadata"].value("name", "");
    tree.order.push_back({q, name, depth, last});
    const auto& mine = children[name];
    for (std::size_t i = 0; i < mine.size(); ++i)
      self(self, mine[i], depth + 1, i + 1 == mine.size());
    last.pop_back();
  };
  for (std::size_t i = 0; i < roots.size(); ++i) visit(visit, roots[i], 0, i + 1 == roots.size());
  return tree;
}

std::vector<Borrowing> borrowing(const QueueTree& tree, const std::string& resource) {
  std::vector<Borrowing> edges;
  for (const auto& family : tree.families) {
    struct Side {
      std::string name;
      double amount;
    };
    std::vector<Side> borrowers, lenders;
    double wanted = 0, idle = 0;
    for (const json* q : family) {
      const std::string name = (*q)["metadata"].value("name", "");
      QueueQuota s = quotaOf(*q, resource);
      if (s.allocated > s.guaranteed) {
        borrowers.push_back({name, s.allocated - s.guaranteed});
        wanted += s.allocated - s.guaranteed;
      }
      double spare = s.guaranteed - s.allocated;
      double lendable = std::min(spare, s.lending_limit.value_or(spare));
      if (lendable > 0) {
        lenders.push_back({name, lendable});
        idle += lendable;
      }
    }
    const double lent = std::min(wanted, idle);
    for (const auto& b : borrowers) {
      const double from_family = wanted > 0 ? lent * b.amount / wanted : 0;
      for (const auto& l : lenders) {
        const double part = idle > 0 ? from_family * l.amount / idle : 0;
        if (part > 0) edges.push_back({b.name, l.name, part});
      }
      if (b.amount - from_family > 1e-9) edges.push_back({b.name, "", b.amount - from_family});
    }
  }
  return edges;
}

}  // namespace troupe::cli
