#include <fmt/format.h>

#include <algorithm>

#include "cli/display_format.h"
#include "cli/queue_tree.h"
#include "cli/reports.h"
#include "cli/text_table.h"
#include "cli/usage_bar.h"

namespace troupe::cli {
namespace {

// "├─ ", "│  └─ ", ...: the lines that draw the tree before a queue's name.
std::string treePrefix(const QueueTree::Entry& entry) {
  std::string prefix;
  for (int level = 1; level < entry.depth; ++level)
    prefix += entry.last[static_cast<std::size_t>(level)] ? "   " : "│  ";
  if (entry.depth > 0) prefix += entry.last.back() ? "└─ " : "├─ ";
  return prefix;
}

double nodeCapacity(const ClusterObjects& objects, const std::string& resource) {
  double total = 0;
  for (const auto& node : objects.nodes) {
    const auto& status = node.value("status", nlohmann::json::object());
    auto from = [&](const char* field) -> std::optional<double> {
      auto list = status.find(field);
      if (list == status.end() || !list->is_object() || !list->contains(resource))
        return std::nullopt;
      return quantityValue((*list)[resource]);
    };
    total += from("allocatable").value_or(from("capacity").value_or(0));
  }
  return total;
}

}  // namespace

std::string queuesReport(const ClusterObjects& objects, const ReportOptions& options) {
  const std::string& r = options.resource;
  if (objects.queues.empty()) return "No queues.\n";
  QueueTree tree = queueTree(objects.queues);
  double scale = nodeCapacity(objects, r);
  for (const auto& e : tree.order) {
    QueueQuota q = quotaOf(*e.queue, r);
    scale = std::max({scale, q.guaranteed, q.fair_share, q.allocated, q.limit.value_or(0)});
  }
  if (scale <= 0) scale = 1;
  const BarStyle style{options.bar_width, options.color};
  TextTable table({"QUEUE", resourceLabel(r) + " USE", "ALLOCATED", "GUARANTEED", "FAIR SHARE",
                   "LIMIT", "WAITING", "RUNNING"});
  for (const auto& e : tree.order) {
    QueueQuota q = quotaOf(*e.queue, r);
    const auto& status = e.queue->value("status", nlohmann::json::object());
    table.add({treePrefix(e) + e.name, usageBar(q, scale, style), amountText(r, q.allocated),
               amountText(r, q.guaranteed), amountText(r, q.fair_share),
               q.limit ? amountText(r, *q.limit) : "-", std::to_string(status.value("pending", 0)),
               std::to_string(status.value("running", 0))});
  }
  std::string out = table.render();
  out += "\n" + usageBarLegend(style) + "\n";
  auto edges = borrowing(tree, r);
  if (edges.empty()) {
    out += fmt::format("\nNo queue holds more {} than it is guaranteed.\n", resourceLabel(r));
  } else {
    out += "\nBorrowing (idle guarantees are lent within a family of sibling queues):\n";
    for (const auto& e : edges)
      out += fmt::format(
          "  {} borrows {} {} {}\n", e.borrower, amountText(r, e.amount), resourceLabel(r),
          e.lender.empty() ? "from capacity beyond its siblings' guarantees" : "from " + e.lender);
  }
  for (const auto& note : objects.not_readable) out += "note: not readable: " + note + "\n";
  return out;
}

}  // namespace troupe::cli
