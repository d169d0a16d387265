#include "test/controllers/cluster_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "controllers/object_json.h"

namespace troupe::controllers::testing {

using Json = nlohmann::json;

namespace {

constexpr const char* kNs = "ml";

std::string podKey(const std::string& gang, int index) {
  return fmt::format("{}/{}-{}", kNs, gang, index);
}

// A string field, "" when absent (json_pointer lookups throw and catch when it is).
std::string field(const Json& object, const char* outer, const char* inner) {
  auto o = object.find(outer);
  if (o == object.end() || !o->is_object()) return {};
  auto i = o->find(inner);
  return i == o->end() || !i->is_string() ? std::string() : i->get<std::string>();
}

std::string phaseOf(const Json& pod) { return field(pod, "status", "phase"); }
bool terminal(const Json& pod) {
  const auto phase = phaseOf(pod);
  return phase == "Succeeded" || phase == "Failed";
}
bool deleting(const Json& pod) { return pod["metadata"].contains("deletionTimestamp"); }
std::string nodeOf(const Json& pod) { return field(pod, "spec", "nodeName"); }
// Bound, not finished, in the API: it holds its node's resources and GPUs.
bool holding(const Json& pod) { return !nodeOf(pod).empty() && !terminal(pod); }

std::vector<int> gpusOf(const Json& pod) {
  std::vector<int> out;
  const Json& annotations = pod["metadata"].value("annotations", Json::object());
  const auto text = annotations.value("troupe.dev/gpu-indices", std::string());
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ','))
    if (!part.empty()) out.push_back(std::stoi(part));
  return out;
}

// A quantity of the forms this model writes: "4", "100m", "512Gi".
std::int64_t amount(const std::string& name, const std::string& text) {
  if (text.size() > 1 && text.back() == 'm') return std::stoll(text.substr(0, text.size() - 1));
  if (text.size() > 2 && text.substr(text.size() - 2) == "Gi")
    return std::stoll(text.substr(0, text.size() - 2)) << 30;
  const std::int64_t v = std::stoll(text);
  return name == "cpu" ? v * 1000 : v;
}

// What a pod asks of its node by resource (one container, as this model writes pods).
std::map<std::string, std::int64_t> requestsOf(const Json& pod) {
  std::map<std::string, std::int64_t> out;
  const Json& resources = pod["spec"]["containers"][0]["resources"];
  for (const char* field : {"limits", "requests"}) {
    const Json list = resources.value(field, Json::object());
    for (const auto& [name, value] : list.items())
      out[name] = amount(name, value.get<std::string>());
  }
  return out;
}

std::string gpuList(const std::vector<int>& gpus) {
  return fmt::format("{}", fmt::join(gpus, ","));
}

}  // namespace

ClusterModel::ClusterModel(int nodes, int gpus_per_node, int ib_per_node) {
  for (int i = 0; i < nodes; ++i) {
    const auto name = fmt::format("node-{}", i);
    put(nodes_, name,
        Json{{"apiVersion", "v1"},
             {"kind", "Node"},
             {"metadata", {{"name", name}, {"labels", {{"kubernetes.io/hostname", name}}}}},
             {"spec", Json::object()},
             {"status",
              {{"allocatable",
                {{"nvidia.com/gpu", std::to_string(gpus_per_node)},
                 {"example.com/ib", std::to_string(ib_per_node)},
                 {"cpu", "64"},
                 {"memory", "512Gi"},
                 {"pods", "110"}}},
               {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}});
  }
}

void ClusterModel::put(std::map<std::string, ObjectRef>& in, const std::string& key, Json object) {
  in[key] = std::make_shared<const Json>(std::move(object));
}

ApiObjects ClusterModel::objects() const {
  auto list = [](const std::map<std::string, ObjectRef>& in) {
    std::vector<ObjectRef> out;
    out.reserve(in.size());
    for (const auto& [key, object] : in) out.push_back(object);
    return ObjectList(std::move(out));
  };
  ApiObjects out;
  out.nodes = list(nodes_);
  out.queues = list(queues_);
  out.pod_groups = list(groups_);
  out.pods = list(pods_);
  return out;
}

void ClusterModel::addQueue(const std::string& name, const std::string& parent,
                            int guaranteed_gpus) {
  Json q{{"apiVersion", "troupe.dev/v1alpha1"},
         {"kind", "Queue"},
         {"metadata", {{"name", name}, {"generation", 1}}},
         {"spec", {{"resources", Json::object()}}}};
  if (!parent.empty()) q["spec"]["parent"] = parent;
  if (guaranteed_gpus > 0)
    q["spec"]["resources"]["nvidia.com/gpu"]["guaranteed"] = std::to_string(guaranteed_gpus);
  put(queues_, name, std::move(q));
  queue_parent_[name] = parent;
}

void ClusterModel::submit(const GangShape& shape) {
  const std::string key = fmt::format("{}/{}", kNs, shape.name);
  put(groups_, key,
      Json{{"apiVersion", "troupe.dev/v1alpha1"},
           {"kind", "PodGroup"},
           {"metadata",
            {{"name", shape.name},
             {"namespace", kNs},
             {"annotations", {{"troupe.dev/submitted-at", std::to_string(now_)}}}}},
           {"spec", {{"queue", shape.queue}, {"minMember", shape.min_pods}}},
           {"status", Json::object()}});
  Gang& gang = gangs_[key];
  gang.shape = shape;
  for (int i = 0; i < shape.pods; ++i) createPod(gang, i);
}

void ClusterModel::createPod(const Gang& gang, int index) {
  const auto& s = gang.shape;
  const std::string name = fmt::format("{}-{}", s.name, index);
  Json limits{{"nvidia.com/gpu", std::to_string(s.gpus)}};
  if (s.ib > 0) limits["example.com/ib"] = std::to_string(s.ib);
  put(pods_, podKey(s.name, index),
      Json{{"apiVersion", "v1"},
           {"kind", "Pod"},
           {"metadata",
            {{"name", name},
             {"namespace", kNs},
             {"uid", fmt::format("uid-{}", next_uid_++)},
             {"labels",
              {{"troupe.dev/pod-group", s.name},
               {"troupe.dev/replica-index", std::to_string(index)}}},
             {"annotations", Json::object()}}},
           {"spec",
            {{"schedulerName", "troupe"},
             {"priority", s.priority},
             {"terminationGracePeriodSeconds", s.grace},
             {"containers",
              {{{"name", "main"},
                {"resources", {{"requests", {{"cpu", "1"}}}, {"limits", limits}}}}}}}},
           {"status", {{"phase", "Pending"}}}});
  sims_[podKey(s.name, index)] = PodSim{s.duration, s.grace, s.termination, -1, -1, -1};
}

void ClusterModel::erasePod(const std::string& key) {
  pods_.erase(key);
  sims_.erase(key);
}

bool ClusterModel::exists(const std::string& ns, const std::string& name,
                          const std::string& uid) const {
  auto it = pods_.find(ns + "/" + name);
  return it != pods_.end() && (*it->second)["metadata"].value("uid", "") == uid;
}

bool ClusterModel::deletePod(const std::string& ns, const std::string& name,
                             const std::string& uid) {
  const std::string key = ns + "/" + name;
  auto it = pods_.find(key);
  if (it == pods_.end()) return false;
  const Json& pod = *it->second;
  if (!uid.empty() && pod["metadata"].value("uid", "") != uid) return false;
  ++counts_.deletions;
  PodSim& sim = sims_[key];
  if (nodeOf(pod).empty() || terminal(pod) || sim.grace <= 0) {
    erasePod(key);
    return true;
  }
  if (deleting(pod)) return true;
  ++counts_.graceful;
  Json changed = pod;
  changed["metadata"]["deletionTimestamp"] = formatTimestamp(now_ + sim.grace);
  changed["metadata"]["deletionGracePeriodSeconds"] = sim.grace;
  put(pods_, key, std::move(changed));
  sim.deleted = now_;
  return true;
}

bool ClusterModel::bind(const std::string& ns, const std::string& name, const std::string& node,
                        const std::vector<int>& gpus) {
  const std::string key = ns + "/" + name;
  auto it = pods_.find(key);
  if (it == pods_.end() || !nodeOf(*it->second).empty() || deleting(*it->second)) return false;
  Json changed = *it->second;
  changed["spec"]["nodeName"] = node;
  changed["metadata"]["annotations"]["troupe.dev/gpu-indices"] = gpuList(gpus);
  put(pods_, key, std::move(changed));
  ++counts_.bindings;
  return true;
}

bool ClusterModel::nodeReady(const std::string& node) const {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) return false;
  for (const auto& c : (*it->second)["status"]["conditions"])
    if (c.value("type", "") == "Ready") return c.value("status", "") == "True";
  return false;
}

void ClusterModel::failNode(const std::string& node) {
  Json changed = *nodes_.at(node);
  changed["status"]["conditions"][0]["status"] = "False";
  put(nodes_, node, std::move(changed));
}

void ClusterModel::recoverNode(const std::string& node) {
  Json changed = *nodes_.at(node);
  changed["status"]["conditions"][0]["status"] = "True";
  put(nodes_, node, std::move(changed));
}

void ClusterModel::tick(std::mt19937_64&) {
  ++now_;
  // The kubelets.
  std::vector<std::string> keys;
  for (const auto& [key, pod] : pods_) keys.push_back(key);
  for (const auto& key : keys) {
    const Json& pod = *pods_.at(key);
    PodSim& sim = sims_[key];
    if (sim.foreign_until >= 0 && now_ >= sim.foreign_until) {
      erasePod(key);
      continue;
    }
    const std::string node = nodeOf(pod);
    if (node.empty()) continue;
    if (terminal(pod)) {
      if (deleting(pod)) erasePod(key);
      continue;
    }
    const std::string phase = phaseOf(pod);
    if (!nodeReady(node)) {
      Json changed = pod;
      changed["status"]["phase"] = "Failed";
      changed["status"]["reason"] = "NodeLost";
      put(pods_, key, std::move(changed));
    } else if (deleting(pod)) {
      if (now_ >= sim.deleted + std::min(sim.termination, sim.grace)) erasePod(key);
    } else if (phase == "Pending") {
      Json changed = pod;
      changed["status"]["phase"] = "Running";
      changed["status"]["startTime"] = formatTimestamp(now_);
      sim.started = now_;
      put(pods_, key, std::move(changed));
    } else if (phase == "Running" && sim.foreign_until < 0 && now_ - sim.started >= sim.duration) {
      Json changed = pod;
      changed["status"]["phase"] = "Succeeded";
      put(pods_, key, std::move(changed));
    }
  }
  // The gangs' controller.
  for (auto& [key, gang] : gangs_) {
    if (gang.finished) continue;
    const auto& s = gang.shape;
    bool failed = false, succeeded = false, live = false;
    for (int i = 0; i < s.pods; ++i) {
      auto it = pods_.find(podKey(s.name, i));
      if (it == pods_.end()) continue;
      const Json& pod = *it->second;
      failed = failed || (phaseOf(pod) == "Failed" && !deleting(pod));
      succeeded = succeeded || phaseOf(pod) == "Succeeded";
      live = live || !terminal(pod);
    }
    if (failed) {  // the whole gang restarts
      ++counts_.restarts;
      for (int i = 0; i < s.pods; ++i) {
        auto it = pods_.find(podKey(s.name, i));
        if (it != pods_.end())
          deletePod(kNs, fmt::format("{}-{}", s.name, i),
                    (*it->second)["metadata"]["uid"].get<std::string>());
      }
      continue;
    }
    if (succeeded) {  // no pod is made again; done once none holds a node
      if (live) continue;
      gang.finished = true;
      ++counts_.finished;
      Json changed = *groups_.at(key);
      changed["status"]["phase"] = "Succeeded";
      put(groups_, key, std::move(changed));
      for (int i = 0; i < s.pods; ++i) erasePod(podKey(s.name, i));
      continue;
    }
    for (int i = 0; i < s.pods; ++i)
      if (!pods_.contains(podKey(s.name, i))) createPod(gang, i);
  }
}

void ClusterModel::addForeignPod(std::mt19937_64& rng, int seconds) {
  std::vector<std::string> ready;
  for (const auto& [name, node] : nodes_)
    if (nodeReady(name)) ready.push_back(name);
  if (ready.empty()) return;
  const std::string node =
      ready[std::uniform_int_distribution<std::size_t>(0, ready.size() - 1)(rng)];
  // Another scheduler places by what the API shows: free GPU indices, free count.
  const Json& n = *nodes_.at(node);
  const std::int64_t gpus = amount("nvidia.com/gpu", n["status"]["allocatable"]["nvidia.com/gpu"]);
  std::vector<bool> taken(static_cast<std::size_t>(gpus), false);
  std::int64_t asked = 0;
  for (const auto& [key, pod] : pods_) {
    if (nodeOf(*pod) != node || !holding(*pod)) continue;
    asked += requestsOf(*pod)["nvidia.com/gpu"];
    for (int g : gpusOf(*pod))
      if (g >= 0 && g < gpus) taken[static_cast<std::size_t>(g)] = true;
  }
  std::vector<int> free;
  for (int g = 0; g < gpus; ++g)
    if (!taken[static_cast<std::size_t>(g)]) free.push_back(g);
  const int want = std::uniform_int_distribution<int>(1, 2)(rng);
  if (static_cast<std::int64_t>(free.size()) < want || gpus - asked < want) return;
  std::shuffle(free.begin(), free.end(), rng);
  free.resize(static_cast<std::size_t>(want));
  std::sort(free.begin(), free.end());
  const std::string name = fmt::format("foreign-{}", next_uid_);
  const std::string key = fmt::format("kube/{}", name);
  put(pods_, key,
      Json{{"apiVersion", "v1"},
           {"kind", "Pod"},
           {"metadata",
            {{"name", name},
             {"namespace", "kube"},
             {"uid", fmt::format("uid-{}", next_uid_++)},
             {"annotations", {{"troupe.dev/gpu-indices", gpuList(free)}}}}},
           {"spec",
            {{"schedulerName", "default-scheduler"},
             {"nodeName", node},
             {"containers",
              {{{"name", "main"},
                {"resources",
                 {{"requests", {{"cpu", "100m"}}},
                  {"limits", {{"nvidia.com/gpu", std::to_string(want)}}}}}}}}}},
           {"status", {{"phase", "Running"}}}});
  PodSim sim;
  sim.foreign_until = now_ + seconds;
  sims_[key] = sim;
}

std::vector<std::string> ClusterModel::overcommitted() const {
  std::vector<std::string> out;
  struct Held {
    std::map<int, std::string> gpu_holder;
    std::map<std::string, std::int64_t> used;
  };
  std::map<std::string, Held> by_node;
  for (const auto& [key, pod] : pods_) {
    if (!holding(*pod)) continue;
    const std::string name = nodeOf(*pod);
    Held& held = by_node[name];
    for (int g : gpusOf(*pod)) {
      auto [it, fresh] = held.gpu_holder.emplace(g, key);
      if (!fresh)
        out.push_back(fmt::format("node {} GPU {} held by {} and {}", name, g, it->second, key));
    }
    for (const auto& [r, v] : requestsOf(*pod)) held.used[r] += v;
  }
  for (auto& [name, held] : by_node) {
    auto node = nodes_.find(name);
    if (node == nodes_.end()) continue;
    auto& used = held.used;
    for (const auto& [r, value] : (*node->second)["status"]["allocatable"].items()) {
      if (r == "pods") continue;
      const std::int64_t cap = amount(r, value.get<std::string>());
      if (used[r] > cap)
        out.push_back(fmt::format("node {} {}: pods hold {} of {}", name, r, used[r], cap));
    }
  }
  return out;
}

std::map<std::string, std::map<std::string, std::int64_t>> ClusterModel::heldByQueue() const {
  std::map<std::string, std::map<std::string, std::int64_t>> out;
  for (const auto& [key, gang] : gangs_) {
    if (gang.finished) continue;
    for (int i = 0; i < gang.shape.pods; ++i) {
      auto it = pods_.find(podKey(gang.shape.name, i));
      if (it == pods_.end() || !holding(*it->second)) continue;
      // The queue and every ancestor.
      for (std::string q = gang.shape.queue; !q.empty(); q = queue_parent_.at(q))
        for (const auto& [r, v] : requestsOf(*it->second))
          if (v != 0) out[q][r] += v;
    }
  }
  return out;
}

bool ClusterModel::allTerminating(const std::string& gang_key) const {
  auto gang = gangs_.find(gang_key);
  if (gang == gangs_.end()) return false;
  bool any = false;
  for (int i = 0; i < gang->second.shape.pods; ++i) {
    auto it = pods_.find(podKey(gang->second.shape.name, i));
    if (it == pods_.end() || !holding(*it->second)) continue;
    if (!deleting(*it->second)) return false;
    any = true;
  }
  return any;
}

std::vector<std::string> ClusterModel::nodeNames() const {
  std::vector<std::string> out;
  for (const auto& [name, node] : nodes_) out.push_back(name);
  return out;
}

std::string ClusterModel::describe() const {
  std::ostringstream s;
  s << "t=" << now_ << "\n";
  for (const auto& [name, node] : nodes_)
    if (!nodeReady(name)) s << "  node " << name << " NotReady\n";
  for (const auto& [key, pod] : pods_) {
    s << "  " << key << " " << phaseOf(*pod);
    if (!nodeOf(*pod).empty()) s << " on " << nodeOf(*pod) << " [" << gpuList(gpusOf(*pod)) << "]";
    if (deleting(*pod)) s << " terminating";
    s << "\n";
  }
  return s.str();
}

}  // namespace troupe::controllers::testing
