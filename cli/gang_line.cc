#include "cli/gang_line.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "api/timestamp.h"
#include "api/well_known.h"
#include "cli/queue_tree.h"

namespace troupe::cli {
namespace {

using json = nlohmann::json;

constexpr const char* kGpu = "nvidia.com/gpu";

double timestamp(const json& value) {
  if (!value.is_string()) return 0;
  auto t = api::parseTimestamp(value.get<std::string>());
  if (!t) return 0;
  return std::chrono::duration<double>(t->time_since_epoch()).count();
}

const json& path(const json& object, std::initializer_list<const char*> keys) {
  static const json kNull;
  const json* at = &object;
  for (const char* k : keys) {
    if (!at->is_object()) return kNull;
    auto it = at->find(k);
    if (it == at->end()) return kNull;
    at = &*it;
  }
  return *at;
}

std::string text(const json& value) { return value.is_string() ? value.get<std::string>() : ""; }

long long integer(const json& value, long long fallback) {
  return value.is_number_integer() ? value.get<long long>() : fallback;
}

}  // namespace

double templateGpus(const json& pod_template) {
  double gpus = 0;
  const json& containers = path(pod_template, {"spec", "containers"});
  if (!containers.is_array()) return 0;
  for (const auto& c : containers) {
    auto request = quantityValue(path(c, {"resources", "requests", kGpu}));
    if (!request) request = quantityValue(path(c, {"resources", "limits", kGpu}));
    gpus += request.value_or(0);
  }
  return gpus;
}

namespace {

// The GPUs a PodGroup's pods ask for, when its spec does not say: its members (label
// troupe.dev/pod-group) or, for a lone pod's own group, the pod that owns it.
double memberGpus(const std::vector<json>& pods, const json& pod_group) {
  const std::string ns = text(path(pod_group, {"metadata", "namespace"}));
  const std::string name = text(path(pod_group, {"metadata", "name"}));
  std::string owner_pod;
  const json& owners = path(pod_group, {"metadata", "ownerReferences"});
  if (owners.is_array())
    for (const auto& o : owners)
      if (o.value("kind", "") == "Pod") owner_pod = o.value("name", "");
  double gpus = 0;
  for (const auto& pod : pods) {
    if (text(path(pod, {"metadata", "namespace"})) != ns) continue;
    const bool member =
        text(path(pod, {"metadata", "labels", api::kPodGroupLabel.data()})) == name ||
        (!owner_pod.empty() && text(path(pod, {"metadata", "name"})) == owner_pod);
    if (member) gpus += templateGpus(pod);
  }
  return gpus;
}

}  // namespace

std::vector<Gang> gangsOf(const ClusterObjects& objects) {
  std::map<std::string, long long> priorities;
  for (const auto& pc : objects.priority_classes)
    priorities[text(path(pc, {"metadata", "name"}))] = integer(path(pc, {"value"}), 0);

  std::vector<Gang> gangs;
  for (const auto& tj : objects.training_jobs) {
    Gang g;
    g.kind = "TrainingJob";
    g.ns = text(path(tj, {"metadata", "namespace"}));
    g.name = text(path(tj, {"metadata", "name"}));
    g.queue = text(path(tj, {"spec", "queue"}));
    g.phase = text(path(tj, {"status", "phase"}));
    const long long wanted = integer(path(tj, {"spec", "replicas"}), 0);
    g.pods = std::to_string(integer(path(tj, {"status", "readyReplicas"}), 0)) + "/" +
             std::to_string(wanted);
    const long long replicas = integer(path(tj, {"status", "replicas"}), 0);
    g.gpus = templateGpus(path(tj, {"spec", "template"})) *
             static_cast<double>(replicas > 0 ? replicas : wanted);
    g.priority_class = text(path(tj, {"spec", "priorityClassName"}));
    const json& pending = path(tj, {"status", "pending"});
    if (pending.is_object()) g.pending = &pending;
    g.queued_at = timestamp(path(tj, {"status", "queuedAt"}));
    if (g.queued_at == 0) g.queued_at = timestamp(path(tj, {"metadata", "creationTimestamp"}));
    g.admitted_at = timestamp(path(tj, {"status", "admittedAt"}));
    const bool suspended = path(tj, {"spec", "suspend"}) == true || g.phase == "Suspended";
    g.finished = g.phase == "Succeeded" || g.phase == "Failed";
    g.waiting = !g.finished && !suspended && (g.phase.empty() || g.phase == "Queued");
    gangs.push_back(std::move(g));
  }
  for (const auto& pg : objects.pod_groups) {
    bool owned_by_job = false;
    const json& owners = path(pg, {"metadata", "ownerReferences"});
    if (owners.is_array())
      for (const auto& o : owners) owned_by_job |= o.value("kind", "") == "TrainingJob";
    if (owned_by_job) continue;
    Gang g;
    g.kind = "PodGroup";
    g.ns = text(path(pg, {"metadata", "namespace"}));
    g.name = text(path(pg, {"metadata", "name"}));
    g.queue = text(path(pg, {"spec", "queue"}));
    g.phase = text(path(pg, {"status", "phase"}));
    g.pods = std::to_string(integer(path(pg, {"status", "running"}), 0)) + "/" +
             std::to_string(integer(path(pg, {"spec", "minMember"}), 0));
    auto min_gpus = quantityValue(path(pg, {"spec", "minResources", kGpu}));
    g.gpus = min_gpus ? *min_gpus : memberGpus(objects.pods, pg);
    g.priority_class = text(path(pg, {"spec", "priorityClassName"}));
    const json& pending = path(pg, {"status", "pending"});
    if (pending.is_object()) g.pending = &pending;
    g.queued_at = timestamp(path(pg, {"metadata", "creationTimestamp"}));
    g.finished = g.phase == "Succeeded" || g.phase == "Failed";
    g.waiting = !g.finished && (g.phase.empty() || g.phase == "Pending");
    gangs.push_back(std::move(g));
  }
  for (auto& g : gangs) {
    auto it = priorities.find(g.priority_class);
    g.priority = it == priorities.end() ? 0 : it->second;
  }

  // Each queue's line; then every gang in queue order, waiting ones first.
  std::map<std::string, std::vector<Gang*>> lines;
  for (auto& g : gangs)
    if (g.waiting) lines[g.queue].push_back(&g);
  for (auto& [queue, line] : lines) {
    std::sort(line.begin(), line.end(), [](const Gang* a, const Gang* b) {
      return std::make_tuple(-a->priority, a->queued_at, a->ns, a->name) <
             std::make_tuple(-b->priority, b->queued_at, b->ns, b->name);
    });
    for (std::size_t i = 0; i < line.size(); ++i) {
      line[i]->position = static_cast<int>(i) + 1;
      line[i]->line_length = static_cast<int>(line.size());
    }
  }
  auto stage = [](const Gang& g) { return g.waiting ? 0 : g.finished ? 2 : 1; };
  std::sort(gangs.begin(), gangs.end(), [&](const Gang& a, const Gang& b) {
    return std::make_tuple(a.queue, stage(a), a.position, a.ns, a.name, a.kind) <
           std::make_tuple(b.queue, stage(b), b.position, b.ns, b.name, b.kind);
  });
  return gangs;
}

}  // namespace troupe::cli
