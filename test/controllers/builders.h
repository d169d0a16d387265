#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

// API objects as the server sends them, built in one line each:
//   node("n1").gpus(8).rack("r1"), pod("ml", "a-0").group("a").gpus(4).boundTo("n1")
namespace troupe::controllers::testing {

using Json = nlohmann::json;

// The creationTimestamp of every object built here, 2026-01-01T00:00:00Z, in Unix seconds.
inline constexpr std::int64_t kT0 = 1767225600;

class NodeBuilder {
 public:
  explicit NodeBuilder(std::string name) {
    j_ = {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", Json::object()}}},
          {"spec", Json::object()},
          {"status",
           {{"allocatable", {{"nvidia.com/gpu", "8"}, {"cpu", "64"}, {"memory", "512Gi"}}},
            {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}};
  }
  NodeBuilder& gpus(int n) {
    j_["status"]["allocatable"]["nvidia.com/gpu"] = std::to_string(n);
    return *this;
  }
  NodeBuilder& rack(const std::string& r) {
    j_["metadata"]["labels"]["troupe.dev/rack"] = r;
    return *this;
  }
  NodeBuilder& notReady() {
    j_["status"]["conditions"][0]["status"] = "False";
    return *this;
  }
  operator Json() const { return j_; }  // NOLINT: a builder reads as its object

 private:
  Json j_;
};
inline NodeBuilder node(std::string name) { return NodeBuilder(std::move(name)); }

class PodBuilder {
 public:
  PodBuilder(std::string ns, std::string name) {
    j_ = {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", name}, {"namespace", ns}, {"uid", "uid-" + name}, {"labels", Json::object()}}},
          {"spec",
           {{"schedulerName", "troupe"},
            {"containers",
             {{{"name", "main"},
               {"resources", {{"requests", {{"cpu", "1"}}}, {"limits", Json::object()}}}}}}}},
          {"status", {{"phase", "Pending"}}}};
  }
  PodBuilder& group(const std::string& g) {
    j_["metadata"]["labels"]["troupe.dev/pod-group"] = g;
    return *this;
  }
  // The queue of a lone pod (no troupe.dev/pod-group label).
  PodBuilder& queue(const std::string& q) {
    j_["metadata"]["labels"]["troupe.dev/queue"] = q;
    return *this;
  }
  PodBuilder& createdAt(const std::string& timestamp) {
    j_["metadata"]["creationTimestamp"] = timestamp;
    return *this;
  }
  PodBuilder& index(int i) {
    j_["metadata"]["labels"]["troupe.dev/replica-index"] = std::to_string(i);
    return *this;
  }
  PodBuilder& gpus(int n) {
    j_["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = std::to_string(n);
    return *this;
  }
  PodBuilder& scheduler(const std::string& s) {
    j_["spec"]["schedulerName"] = s;
    return *this;
  }
  PodBuilder& boundTo(const std::string& node, const std::string& gpu_indices = "") {
    j_["spec"]["nodeName"] = node;
    if (!gpu_indices.empty()) j_["metadata"]["annotations"]["troupe.dev/gpu-indices"] = gpu_indices;
    return *this;
  }
  PodBuilder& phase(const std::string& p) {
    j_["status"]["phase"] = p;
    return *this;
  }
  PodBuilder& annotate(const std::string& k, const std::string& v) {
    j_["metadata"]["annotations"][k] = v;
    return *this;
  }
  PodBuilder& deleting() {
    j_["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
    return *this;
  }
  operator Json() const { return j_; }  // NOLINT

 private:
  Json j_;
};
inline PodBuilder pod(std::string ns, std::string name) {
  return PodBuilder(std::move(ns), std::move(name));
}

class PodGroupBuilder {
 public:
  PodGroupBuilder(std::string ns, std::string name) {
    j_ = {{"apiVersion", "troupe.dev/v1alpha1"},
          {"kind", "PodGroup"},
          {"metadata",
           {{"name", name},
            {"namespace", ns},
            {"creationTimestamp", "2026-01-01T00:00:00Z"},
            {"annotations", Json::object()}}},
          {"spec", {{"minMember", 1}, {"queue", "team-a"}}},
          {"status", Json::object()}};
  }
  PodGroupBuilder& minMember(int n) {
    j_["spec"]["minMember"] = n;
    return *this;
  }
  PodGroupBuilder& queue(const std::string& q) {
    j_["spec"]["queue"] = q;
    return *this;
  }
  PodGroupBuilder& priorityClass(const std::string& pc) {
    j_["spec"]["priorityClassName"] = pc;
    return *this;
  }
  PodGroupBuilder& annotate(const std::string& k, const std::string& v) {
    j_["metadata"]["annotations"][k] = v;
    return *this;
  }
  PodGroupBuilder& createdAt(const std::string& ts) {
    j_["metadata"]["creationTimestamp"] = ts;
    return *this;
  }
  PodGroupBuilder& phase(const std::string& p) {
    j_["status"]["phase"] = p;
    return *this;
  }
  PodGroupBuilder& timeout(int s) {
    j_["spec"]["scheduleTimeoutSeconds"] = s;
    return *this;
  }
  operator Json() const { return j_; }  // NOLINT

 private:
  Json j_;
};
inline PodGroupBuilder podGroup(std::string ns, std::string name) {
  return PodGroupBuilder(std::move(ns), std::move(name));
}

class QueueBuilder {
 public:
  explicit QueueBuilder(std::string name) {
    j_ = {{"apiVersion", "troupe.dev/v1alpha1"},
          {"kind", "Queue"},
          {"metadata", {{"name", name}, {"generation", 1}}},
          {"spec", {{"resources", Json::object()}}}};
  }
  QueueBuilder& parent(const std::string& p) {
    j_["spec"]["parent"] = p;
    return *this;
  }
  QueueBuilder& guaranteedGpus(int n) {
    j_["spec"]["resources"]["nvidia.com/gpu"]["guaranteed"] = std::to_string(n);
    return *this;
  }
  QueueBuilder& limitGpus(int n) {
    j_["spec"]["resources"]["nvidia.com/gpu"]["limit"] = std::to_string(n);
    return *this;
  }
  QueueBuilder& namespaces(std::vector<std::string> names) {
    j_["spec"]["namespaces"] = names;
    return *this;
  }
  QueueBuilder& namespaceSelector(const std::string& key, const std::string& value) {
    j_["spec"]["namespaceSelector"] = {{"matchLabels", {{key, value}}}};
    return *this;
  }
  QueueBuilder& created(const std::string& timestamp) {
    j_["metadata"]["creationTimestamp"] = timestamp;
    return *this;
  }
  operator Json() const { return j_; }  // NOLINT

 private:
  Json j_;
};
inline QueueBuilder queue(std::string name) { return QueueBuilder(std::move(name)); }

// A Namespace with labels.
inline Json namespaceObject(const std::string& name,
                            std::map<std::string, std::string> labels = {}) {
  labels["kubernetes.io/metadata.name"] = name;
  return {{"apiVersion", "v1"},
          {"kind", "Namespace"},
          {"metadata", {{"name", name}, {"labels", labels}}}};
}

class JobBuilder {
 public:
  JobBuilder(std::string ns, std::string name) {
    j_ = {
        {"apiVersion", "troupe.dev/v1alpha1"},
        {"kind", "TrainingJob"},
        {"metadata",
         {{"name", name},
          {"namespace", ns},
          {"uid", "uid-job-" + name},
          {"generation", 1},
          {"creationTimestamp", "2026-01-01T00:00:00Z"}}},
        {"spec",
         {{"queue", "team-a"},
          {"replicas", 2},
          {"template",
           {{"metadata", {{"labels", {{"app", "llm"}}}}},
            {"spec",
             {{"containers",
               {{{"name", "trainer"},
                 {"image", "trainer:1"},
                 {"env", {{{"name", "RANK"}, {"value", "stale"}}, {{"name", "K"}, {"value", "v"}}}},
                 {"resources", {{"limits", {{"nvidia.com/gpu", "8"}}}}}}}}}}}},
          {"restartPolicy", {{"maxRestarts", 2}, {"backoffSeconds", 10}}}}},
        {"status", Json::object()}};
  }
  JobBuilder& replicas(int n) {
    j_["spec"]["replicas"] = n;
    return *this;
  }
  JobBuilder& minReplicas(int n) {
    j_["spec"]["minReplicas"] = n;
    return *this;
  }
  JobBuilder& suspend(bool s) {
    j_["spec"]["suspend"] = s;
    return *this;
  }
  JobBuilder& status(const Json& s) {
    j_["status"] = s;
    return *this;
  }
  JobBuilder& set(const std::string& pointer, const Json& v) {
    j_[Json::json_pointer(pointer)] = v;
    return *this;
  }
  JobBuilder& annotate(const std::string& k, const std::string& v) {
    j_["metadata"]["annotations"][k] = v;
    return *this;
  }
  operator Json() const { return j_; }  // NOLINT

 private:
  Json j_;
};
inline JobBuilder job(std::string ns, std::string name) {
  return JobBuilder(std::move(ns), std::move(name));
}

}  // namespace troupe::controllers::testing
