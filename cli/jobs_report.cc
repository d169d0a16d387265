#include <fmt/format.h>

#include "cli/display_format.h"
#include "cli/gang_line.h"
#include "cli/reports.h"
#include "cli/text_table.h"

namespace troupe::cli {

std::string jobsReport(const ClusterObjects& objects, const ReportOptions& options) {
  auto gangs = gangsOf(objects);
  TextTable table({"QUEUE", "JOB", "KIND", "PHASE", "PODS", "GPUS", "PRIORITY", "WAIT", "POSITION",
                   "WHY PENDING"});
  int hidden = 0, shown = 0;
  for (const auto& g : gangs) {
    if (g.finished && !options.all) {
      ++hidden;
      continue;
    }
    ++shown;
    const double wait = g.waiting           ? objects.now - g.queued_at
                        : g.admitted_at > 0 ? g.admitted_at - g.queued_at
                                            : -1;
    std::string priority = g.priority_class.empty()
                               ? std::to_string(g.priority)
                               : fmt::format("{} ({})", g.priority_class, g.priority);
    table.add({g.queue, g.key(), g.kind, g.phase.empty() ? "New" : g.phase, g.pods,
               amountText("nvidia.com/gpu", g.gpus), priority,
               wait < 0 ? "-" : (g.waiting ? "" : "waited ") + durationText(wait),
               g.waiting ? fmt::format("{} of {}", g.position, g.line_length) : "-",
               g.waiting && g.pending ? g.pending->value("reason", "") : ""});
  }
  std::string out = shown ? table.render() : "No jobs.\n";
  if (hidden) out += fmt::format("({} finished not shown; --all shows them)\n", hidden);
  if (shown)
    out +=
        "POSITION is the estimated place among the queue's waiting gangs: priority, then "
        "time queued.\n";
  for (const auto& note : objects.not_readable) out += "note: not readable: " + note + "\n";
  return out;
}

}  // namespace troupe::cli
