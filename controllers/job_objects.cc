#include "controllers/job_objects.h"

#include <fmt/format.h>

#include "api/well_known.h"
#include "common/json_member.h"
#include "controllers/annotations.h"
#include "controllers/object_json.h"

namespace troupe::controllers {

using Json = nlohmann::json;

namespace {

Json baseMeta(const Json& job, const std::string& name) {
  return Json{{"name", name},
              {"namespace", namespaceOf(job)},
              {"labels", {{std::string(api::kJobNameLabel), nameOf(job)}}},
              {"ownerReferences", Json::array({ownerReference(job)})}};
}

std::int32_t replicasOf(const Json& job) {
  return static_cast<std::int32_t>(intAt(job, "/spec/replicas", 1));
}

std::int32_t minReplicasOf(const Json& job) {
  return static_cast<std::int32_t>(intAt(job, "/spec/minReplicas", replicasOf(job)));
}

void setEnv(Json& container, const std::string& name, const std::string& value) {
  if (!container.contains("env") || !container["env"].is_array()) container["env"] = Json::array();
  auto& env = container["env"];
  for (auto it = env.begin(); it != env.end();) {
    if (it->is_object() && it->value("name", "") == name) {
      it = env.erase(it);
    } else {
      ++it;
    }
  }
  env.push_back({{"name", name}, {"value", value}});
}

}  // namespace

std::string podName(const std::string& job, std::int32_t index) {
  return fmt::format("{}-{}", job, index);
}

std::string masterAddress(const Json& job) {
  return fmt::format("{}.{}.{}.svc", podName(nameOf(job), 0), nameOf(job), namespaceOf(job));
}

Json renderPodGroup(const Json& job, std::int64_t submitted_at) {
  Json pg{{"apiVersion", std::string(api::kApiVersion)},
          {"kind", std::string(api::kPodGroupKind)},
          {"metadata", baseMeta(job, nameOf(job))},
          {"spec", {{"minMember", minReplicasOf(job)}, {"queue", stringAt(job, "/spec/queue")}}}};
  auto pc = stringAt(job, "/spec/priorityClassName");
  if (!pc.empty()) pg["spec"]["priorityClassName"] = pc;
  if (const Json types = job.value(Json::json_pointer("/spec/gpuTypes"), Json());
      types.is_array() && !types.empty())
    pg["spec"]["gpuTypes"] = types;
  Json annotations{{std::string(kSubmittedAtAnnotation), std::to_string(submitted_at)}};
  if (!boolAt(job, "/spec/preemptible", true))
    annotations[std::string(kPreemptibleAnnotation)] = "false";
  auto level = stringAt(job, "/spec/topology/level");
  if (!level.empty()) {
    annotations[std::string(kTopologyLevelAnnotation)] = level;
    auto mode = stringAt(job, "/spec/topology/mode");
    annotations[std::string(kTopologyModeAnnotation)] = mode.empty() ? "Preferred" : mode;
  }
  if (auto estimate = intAt(job, "/spec/runtimeEstimateSeconds", -1); estimate >= 0)
    annotations[std::string(kRuntimeEstimateAnnotation)] = std::to_string(estimate);
  pg["metadata"]["annotations"] = annotations;
  return pg;
}

Json renderService(const Json& job) {
  Json svc{{"apiVersion", "v1"},
           {"kind", "Service"},
           {"metadata", baseMeta(job, nameOf(job))},
           {"spec",
            {{"clusterIP", "None"},
             {"publishNotReadyAddresses", true},
             {"selector", {{std::string(api::kJobNameLabel), nameOf(job)}}}}}};
  return svc;
}

Json renderPod(const Json& job, std::int32_t index, std::int32_t restart) {
  const auto job_name = nameOf(job);
  const Json& tmpl = objectMember(objectMember(job, "spec"), "template");
  const Json& tmpl_meta = objectMember(tmpl, "metadata");
  Json pod{{"apiVersion", "v1"}, {"kind", "Pod"}};
  pod["metadata"] = baseMeta(job, podName(job_name, index));
  Json labels = objectMember(tmpl_meta, "labels");
  labels[std::string(api::kJobNameLabel)] = job_name;
  labels[std::string(api::kPodGroupLabel)] = job_name;
  labels[std::string(api::kReplicaIndexLabel)] = std::to_string(index);
  pod["metadata"]["labels"] = std::move(labels);
  Json annotations = objectMember(tmpl_meta, "annotations");
  annotations[kGangRestartAnnotation] = std::to_string(restart);
  pod["metadata"]["annotations"] = std::move(annotations);

  Json spec = objectMember(tmpl, "spec");
  spec["schedulerName"] = std::string(api::kSchedulerName);
  spec["restartPolicy"] = "Never";
  spec["hostname"] = podName(job_name, index);
  spec["subdomain"] = job_name;
  spec.erase("nodeName");

  const auto replicas = replicasOf(job);
  const auto min_replicas = minReplicasOf(job);
  auto port = annotation(job, kMasterPortAnnotation);
  const bool mpi = annotation(job, kLauncherAnnotation) == "mpi";
  if (!spec.contains("containers") || !spec["containers"].is_array())
    spec["containers"] = Json::array();
  for (auto& c : spec["containers"]) {
    setEnv(c, "RANK", std::to_string(index));
    setEnv(c, "NODE_RANK", std::to_string(index));
    setEnv(c, "WORLD_SIZE", std::to_string(replicas));
    setEnv(c, "LOCAL_RANK", "0");
    setEnv(c, "MASTER_ADDR", masterAddress(job));
    setEnv(c, "MASTER_PORT", port.empty() ? std::to_string(kDefaultMasterPort) : port);
    if (min_replicas < replicas)
      setEnv(c, "PET_NNODES", fmt::format("{}:{}", min_replicas, replicas));
    if (mpi) {
      setEnv(c, "OMPI_COMM_WORLD_RANK", std::to_string(index));
      setEnv(c, "OMPI_COMM_WORLD_SIZE", std::to_string(replicas));
    }
  }
  pod["spec"] = std::move(spec);
  return pod;
}

}  // namespace troupe::controllers
