#include <fmt/format.h>

#include <map>

#include "cli/display_format.h"
#include "cli/queue_tree.h"
#include "cli/reports.h"
#include "cli/text_table.h"

namespace troupe::cli {
namespace {

using json = nlohmann::json;

std::string text(const json& object, const json::json_pointer& at) {
  const json& v = object.value(at, json());
  return v.is_string() ? v.get<std::string>() : "";
}

struct Held {
  double gpus = 0;
  int pods = 0;
};

std::string share(double part, double whole) {
  return whole > 0 ? fmt::format("{:.0f}%", 100 * part / whole) : "-";
}

}  // namespace

std::string topReport(const ClusterObjects& objects, const ReportOptions& options) {
  (void)options;
  // Which queue a gang charges: a TrainingJob's or PodGroup's spec.queue.
  std::map<std::string, std::string> job_queue, group_queue;  // ns/name -> queue
  for (const auto& tj : objects.training_jobs)
    job_queue[text(tj, "/metadata/namespace"_json_pointer) + "/" +
              text(tj, "/metadata/name"_json_pointer)] = text(tj, "/spec/queue"_json_pointer);
  for (const auto& pg : objects.pod_groups)
    group_queue[text(pg, "/metadata/namespace"_json_pointer) + "/" +
                text(pg, "/metadata/name"_json_pointer)] = text(pg, "/spec/queue"_json_pointer);

  std::map<std::string, Held> by_queue, by_namespace, by_node;
  double held = 0;
  for (const auto& pod : objects.pods) {
    const std::string node = text(pod, "/spec/nodeName"_json_pointer);
    const std::string phase = text(pod, "/status/phase"_json_pointer);
    const json& annotations = pod.value("/metadata/annotations"_json_pointer, json::object());
    if (node.empty() || phase == "Succeeded" || phase == "Failed" ||
        !annotations.contains("troupe.dev/gpu-indices"))
      continue;
    const std::string indices = annotations["troupe.dev/gpu-indices"].get<std::string>();
    double gpus = 0;
    for (std::size_t at = 0; at < indices.size();) {
      auto comma = indices.find(',', at);
      if (indices.substr(at, comma - at).find_first_of("0123456789") != std::string::npos) ++gpus;
      if (comma == std::string::npos) break;
      at = comma + 1;
    }
    const std::string ns = text(pod, "/metadata/namespace"_json_pointer);
    const json& labels = pod.value("/metadata/labels"_json_pointer, json::object());
    std::string queue;
    if (labels.contains("troupe.dev/job-name"))
      queue = job_queue[ns + "/" + labels["troupe.dev/job-name"].get<std::string>()];
    else if (labels.contains("troupe.dev/pod-group"))
      queue = group_queue[ns + "/" + labels["troupe.dev/pod-group"].get<std::string>()];
    else if (labels.contains("troupe.dev/queue"))
      queue = labels["troupe.dev/queue"].get<std::string>();
    for (auto* m : {&by_queue, &by_namespace, &by_node}) {
      const std::string& key = m == &by_queue ? queue : m == &by_namespace ? ns : node;
      (*m)[key.empty() ? "(unknown)" : key].gpus += gpus;
      (*m)[key.empty() ? "(unknown)" : key].pods += 1;
    }
    held += gpus;
  }

  double total = 0;
  std::map<std::string, double> node_gpus;
  std::map<std::string, std::string> node_rack;
  for (const auto& node : objects.nodes) {
    const std::string name = text(node, "/metadata/name"_json_pointer);
    auto gpus =
        quantityValue(node.value("/status/allocatable/nvidia.com~1gpu"_json_pointer, json()));
    node_gpus[name] = gpus.value_or(0);
    node_rack[name] = text(node, "/metadata/labels/troupe.dev~1rack"_json_pointer);
    total += gpus.value_or(0);
  }

  std::string out = fmt::format("GPUs held: {} of {} ({}) on {} nodes\n\n", amountText("", held),
                                amountText("", total), share(held, total), objects.nodes.size());
  auto table = [&](const char* title, const std::map<std::string, Held>& rows) {
    TextTable t({title, "GPUS", "SHARE", "PODS"});
    for (const auto& [key, h] : rows)
      t.add({key, amountText("", h.gpus), share(h.gpus, total), std::to_string(h.pods)});
    return t.render();
  };
  if (by_queue.empty()) {
    out += "No pod holds a GPU.\n";
  } else {
    out += table("QUEUE", by_queue) + "\n" + table("NAMESPACE", by_namespace) + "\n";
  }
  TextTable nodes({"NODE", "RACK", "GPUS HELD", "OF"});
  for (const auto& [name, gpus] : node_gpus) {
    if (gpus <= 0) continue;
    auto it = by_node.find(name);
    nodes.add({name, node_rack[name].empty() ? "-" : node_rack[name],
               amountText("", it == by_node.end() ? 0 : it->second.gpus), amountText("", gpus)});
  }
  if (!node_gpus.empty()) out += nodes.render();
  for (const auto& note : objects.not_readable) out += "note: not readable: " + note + "\n";
  return out;
}

}  // namespace troupe::cli
