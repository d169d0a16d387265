#include <fmt/format.h>

#include <map>

#include "cli/display_format.h"
#include "cli/gang_line.h"
#include "cli/pending_advice.h"
#include "cli/reports.h"

namespace troupe::cli {
namespace {

using json = nlohmann::json;

// Where the gang's pods hold GPUs: "gpu-r1-n1 [0,1,2,3]" per pod.
std::vector<std::string> placements(const ClusterObjects& objects, const Gang& g) {
  std::vector<std::string> out;
  const char* label = g.kind == "TrainingJob" ? "troupe.dev/job-name" : "troupe.dev/pod-group";
  for (const auto& pod : objects.pods) {
    const json& meta = pod.value("metadata", json::object());
    if (meta.value("namespace", "") != g.ns) continue;
    const json& labels = meta.value("labels", json::object());
    if (labels.value(label, "") != g.name) continue;
    const std::string phase = pod.value("/status/phase"_json_pointer, json("")).get<std::string>();
    if (phase == "Succeeded" || phase == "Failed") continue;
    const std::string node = pod.value("/spec/nodeName"_json_pointer, json("")).get<std::string>();
    if (node.empty()) continue;
    const json& annotations = meta.value("annotations", json::object());
    out.push_back(fmt::format("{} on {} GPUs [{}]", meta.value("name", ""), node,
                              annotations.value("troupe.dev/gpu-indices", "")));
  }
  return out;
}

}  // namespace

Result<std::string> whyReport(const ClusterObjects& objects, const std::string& ns,
                              const std::string& name, const ReportOptions& options) {
  (void)options;
  auto gangs = gangsOf(objects);
  const Gang* found = nullptr;
  for (const auto& g : gangs)
    if (g.ns == ns && g.name == name && (!found || g.kind == "TrainingJob")) found = &g;
  if (!found)
    return makeError(
        ErrorCode::NotFound, name,
        fmt::format("no TrainingJob or PodGroup \"{}\" in namespace \"{}\"", name, ns));
  const Gang& g = *found;
  const std::string phase = g.phase.empty() ? "New (no decision yet)" : g.phase;
  std::string out = fmt::format("{} {}: {} in queue {}", g.kind, g.key(), phase, g.queue);
  if (g.waiting) {
    out += fmt::format(", waiting {}, estimated position {} of {} in its queue's line.\n",
                       durationText(objects.now - g.queued_at), g.position, g.line_length);
  } else if (g.admitted_at > 0) {
    out += fmt::format(", admitted after waiting {}.\n", durationText(g.admitted_at - g.queued_at));
  } else {
    out += ".\n";
  }

  if (!g.waiting) {
    if (g.phase == "Suspended")
      out += "\nIt is suspended: set spec.suspend to false and it queues again.\n";
    if (g.finished) out += "\nIt has finished; nothing holds it back.\n";
    auto where = placements(objects, g);
    if (!where.empty()) {
      out += "\nIt holds:\n";
      for (const auto& w : where) out += "  " + w + "\n";
    }
    return out;
  }
  if (!g.pending) {
    out +=
        "\nThe scheduler has not explained its wait yet (a new gang gets a decision within "
        "a second or two).\n";
    return out;
  }
  PendingNumbers n = pendingNumbers(*g.pending);
  // The message starts with the reason again ("QueueAtLimit: ..."): said once is enough.
  std::string message = n.message;
  if (message.rfind(n.reason + ": ", 0) == 0) message.erase(0, n.reason.size() + 2);
  out += fmt::format("\nWhy: {}\n  {}\n", n.reason, message);
  const std::string& r = n.resource;
  out += fmt::format("\nThe numbers ({} of queue {}, at the scheduler's last look):\n", r, n.queue);
  auto line = [&](const char* label, const std::optional<double>& v) {
    out += fmt::format("  {:<11}{}\n", label, v ? amountText(r, *v) : std::string("none"));
  };
  line("request", n.request);
  line("allocated", n.allocated);
  line("guaranteed", n.guaranteed);
  line("fair share", n.fair_share);
  line("limit", n.limit);
  if (auto arithmetic = pendingArithmetic(n); !arithmetic.empty()) out += "  " + arithmetic + "\n";
  auto remedies = pendingRemedies(n);
  if (!remedies.empty()) {
    out += "\nWhat would make it run:\n";
    for (std::size_t i = 0; i < remedies.size(); ++i)
      out += "  - " + remedies[i] + (i + 1 < remedies.size() ? ", or\n" : "\n");
  }
  return out;
}

}  // namespace troupe::cli
