#include "controllers/cluster_writer.h"

#include "api/well_known.h"
#include "common/helper_pool.h"
#include "common/log.h"
#include "controllers/gpu_indices.h"
#include "controllers/informer_caches.h"
#include "controllers/merge_patch.h"
#include "controllers/object_json.h"
#include "kube/kube_client.h"

namespace troupe::controllers {
namespace {

namespace res = kube::resources;

const kube::PatchOptions kMergePatch{kube::PatchType::Merge, kFieldManager, false, false};

}  // namespace

ClusterWriter::ClusterWriter(kube::KubeClient& client, InformerCaches& caches, HelperPool& helpers,
                             const TimeSource& time)
    : client_(client), caches_(caches), helpers_(helpers), time_(time) {}

bool ClusterWriter::deletePod(const PodDeletion& d) {
  kube::DeleteOptions options;
  if (!d.uid.empty()) options.precondition_uid = d.uid;
  auto r = client_.remove({res::kPods, d.ns, d.pod, ""}, options);
  if (!r && !r.error().isNotFound() && !r.error().isConflict()) {
    log::warn("pod deletion failed",
              {{"pod", d.ns + "/" + d.pod}, {"error", r.error().describe()}});
    return false;
  }
  assumed_.deleted(d.ns + "/" + d.pod, d.uid, now());
  log::debug("pod deleted", {{"pod", d.ns + "/" + d.pod}, {"gang", d.gang}, {"reason", d.reason}});
  return true;
}

void ClusterWriter::deletePods(const std::vector<PodDeletion>& deletions) {
  helpers_.forEach(deletions.size(), kWriteWidth, [&](std::size_t i) { deletePod(deletions[i]); });
}

bool ClusterWriter::postBinding(const state::PlannedBinding& b) {
  Json annotations{{std::string(api::kGpuIndicesAnnotation), formatGpuIndices(b.gpus)}};
  if (!b.gpu_type.empty()) annotations[std::string(api::kGpuTypeAnnotation)] = b.gpu_type;
  Json binding{{"apiVersion", "v1"},
               {"kind", "Binding"},
               {"metadata", {{"name", b.pod}, {"namespace", b.ns}, {"annotations", annotations}}},
               {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", b.node}}}};
  auto r = client_.createSubresource({res::kPods, b.ns, b.pod, "binding"}, binding);
  if (!r) {
    log::warn("binding failed",
              {{"pod", b.ns + "/" + b.pod}, {"node", b.node}, {"error", r.error().describe()}});
    return false;
  }
  return true;
}

void ClusterWriter::assumeBound(const state::PlannedBinding& b) {
  // The uid the cache holds, so a later pod of the same name is not taken for this one.
  std::string uid;
  if (auto cached = caches_.pods().cache().get(b.ns + "/" + b.pod))
    uid = stringAt(*cached, "/metadata/uid");
  assumed_.bound(b.ns + "/" + b.pod, std::move(uid), b.node, formatGpuIndices(b.gpus), now());
}

std::vector<char> ClusterWriter::bindAll(const std::vector<state::PlannedBinding>& bindings) {
  std::vector<char> bound(bindings.size(), 0);
  helpers_.forEach(bindings.size(), kWriteWidth,
                   [&](std::size_t i) { bound[i] = postBinding(bindings[i]) ? 1 : 0; });
  for (std::size_t i = 0; i < bindings.size(); ++i)
    if (bound[i]) assumeBound(bindings[i]);
  return bound;
}

kube::ApiResult<Json> ClusterWriter::create(const kube::ResourceType& type, const std::string& ns,
                                            const Json& object) {
  return client_.create(type, ns, object, {kFieldManager, false});
}

void ClusterWriter::patchStatus(const kube::ResourceType& type, const std::string& ns,
                                const std::string& name, const Json& old_status,
                                const Json& status) {
  writeStatusPatch(type, ns, name, mergePatch(old_status, status));
}

void ClusterWriter::writeStatusPatch(const kube::ResourceType& type, const std::string& ns,
                                     const std::string& name, const Json& patch) {
  auto r = client_.patch({type, ns, name, "status"}, Json{{"status", patch}}, kMergePatch);
  if (!r && !r.error().isNotFound())
    log::warn("status write failed", {{"kind", type.kind},
                                      {"object", ns.empty() ? name : ns + "/" + name},
                                      {"error", r.error().describe()}});
}

void ClusterWriter::annotateGroup(const std::string& gang, const std::string& key,
                                  const Json& value) {
  auto slash = gang.find('/');
  auto r =
      annotate(res::kPodGroups, gang.substr(0, slash), gang.substr(slash + 1), Json{{key, value}});
  if (!r && !r.error().isNotFound())
    log::warn("podgroup annotation failed", {{"gang", gang}, {"error", r.error().describe()}});
}

kube::ApiResult<Json> ClusterWriter::annotate(const kube::ResourceType& type, const std::string& ns,
                                              const std::string& name, const Json& annotations) {
  return client_.patch({type, ns, name, ""}, Json{{"metadata", {{"annotations", annotations}}}},
                       kMergePatch);
}

void ClusterWriter::deleteJob(const std::string& ns, const std::string& name) {
  auto r = client_.remove(
      {res::kTrainingJobs, ns, name, ""},
      kube::DeleteOptions{"Background", std::nullopt, std::nullopt, std::nullopt, false});
  if (!r && !r.error().isNotFound())
    log::warn("ttl delete failed", {{"job", ns + "/" + name}, {"error", r.error().describe()}});
}

}  // namespace troupe::controllers
