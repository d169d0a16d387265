#include "controllers/pods_in_the_way.h"

#include <algorithm>
#include <tuple>

#include "controllers/action_plan.h"
#include "controllers/node_hold.h"

namespace troupe::controllers {
namespace {

// A pod of the snapshot that is leaving, on the node it holds.
struct Leaving {
  std::string_view node;
  std::uint64_t gpus = 0;
  PodRef ref;
  // Its capacity was released within this cycle (a victim, a shrunk pod): the engine may
  // have placed anything on that node onto it. Otherwise it was terminating before.
  bool released_now = false;
};

bool samePod(const PodRef& a, const PodRef& b) {
  return a.ns == b.ns && a.pod == b.pod && a.uid == b.uid;
}

}  // namespace

std::map<std::string, std::vector<PodRef>> podsInTheWay(
    const queueing::Decisions& decisions, const ClusterSnapshot& cluster,
    const std::vector<state::AdmissionRecord>& bindings) {
  std::vector<Leaving> leaving;
  auto add = [&](const GangPod& pod, bool released_now) {
    leaving.push_back(
        {pod.node(), gpuMask(pod.gpus()), PodRef{pod.ns(), pod.name(), pod.uid()}, released_now});
  };
  auto gangOf = [&](const std::string& key) -> const Gang* {
    auto it = cluster.gangs.find(key);
    return it == cluster.gangs.end() ? nullptr : &it->second;
  };
  for (const auto& p : decisions.preemptions)
    if (const Gang* gang = gangOf(p.gang))
      for (const auto& pod : gang->pods)
        if (pod.bound()) add(pod, true);
  for (const auto& r : decisions.resizes) {
    const Gang* gang = gangOf(r.gang);
    if (!gang) continue;
    for (const auto& removed : r.removed) {
      const std::uint64_t gpus = gpuMask(removed.gpus);
      for (const auto& pod : gang->pods)
        if (pod.bound() && pod.node() == removed.node &&
            (gpus == 0 || (gpuMask(pod.gpus()) & gpus) != 0))
          add(pod, true);
    }
  }
  for (const auto& key : cluster.terminating_gangs)
    if (const Gang* gang = gangOf(key))
      for (const auto& pod : gang->pods)
        if (pod.bound() && pod.deleting()) add(pod, false);
  if (leaving.empty()) return {};

  std::map<std::string, std::vector<PodRef>> out;
  for (const auto& record : bindings) {
    std::vector<PodRef> in_the_way;
    bool waits = false;
    for (const auto& b : record.bindings) {
      const std::uint64_t gpus = gpuMask(b.gpus);
      for (const auto& l : leaving) {
        if (l.node != b.node || !(l.released_now || (l.gpus & gpus) != 0)) continue;
        waits = true;
        in_the_way.push_back(l.ref);
      }
    }
    if (!waits) continue;
    std::sort(in_the_way.begin(), in_the_way.end(), [](const PodRef& a, const PodRef& b) {
      return std::tie(a.ns, a.pod, a.uid) < std::tie(b.ns, b.pod, b.uid);
    });
    in_the_way.erase(std::unique(in_the_way.begin(), in_the_way.end(), samePod), in_the_way.end());
    auto& room = out[record.gang];
    room.insert(room.end(), in_the_way.begin(), in_the_way.end());
  }
  return out;
}

}  // namespace troupe::controllers
