#include "controllers/pods_in_the_way.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "controllers/action_plan.h"
#include "controllers/node_hold.h"

namespace troupe::controllers {
namespace {

using queueing::ResourceVector;

// A pod of the snapshot on a node some binding lands on.
struct Holder {
  PodRef ref;
  std::uint64_t gpus = 0;
  bool leaving = false;  // deleted (this cycle or before): it goes by itself
};

// What one node has left while the pods of the snapshot hold what they hold.
struct Room {
  ResourceVector free;
  std::uint64_t taken = 0;  // GPUs held by pods, inside gangs or out
  std::vector<Holder> holders;
};

// What one record takes on one node.
struct Take {
  ResourceVector requests;
  std::uint64_t gpus = 0;
};

}  // namespace

std::map<std::string, std::vector<PodRef>> podsInTheWay(
    const queueing::Decisions& decisions, const ClusterSnapshot& cluster,
    const std::vector<state::AdmissionRecord>& bindings, const std::vector<PodRef>& deleted) {
  // Nodes where the engine may have placed on capacity a pod still holds.
  std::set<std::string> suspect;
  auto boundNodesOf = [&](const std::string& key, bool leaving_only) {
    auto it = cluster.gangs.find(key);
    if (it == cluster.gangs.end()) return;
    for (const auto& pod : it->second.pods)
      if (pod.bound() && (!leaving_only || pod.deleting())) suspect.insert(pod.node());
  };
  for (const auto& p : decisions.preemptions) boundNodesOf(p.gang, false);
  for (const auto& r : decisions.resizes)
    for (const auto& removed : r.removed) suspect.insert(removed.node);
  for (const auto& key : cluster.terminating_gangs) boundNodesOf(key, true);
  std::map<std::string, Room> rooms;
  for (const auto& record : bindings)
    for (const auto& b : record.bindings)
      if (suspect.contains(b.node)) rooms.try_emplace(b.node);
  if (rooms.empty()) return {};

  // What the snapshot's pods hold there.
  for (const auto& node : cluster.snapshot.nodes) {
    auto room = rooms.find(node.name);
    if (room == rooms.end()) continue;
    room->second.free = node.allocatable;
    room->second.taken = gpuMask(node.held_gpus);
  }
  std::vector<std::pair<std::string_view, std::string_view>> gone;  // (ns, pod), sorted
  for (const auto& d : deleted) gone.emplace_back(d.ns, d.pod);
  std::sort(gone.begin(), gone.end());
  auto names = cluster.names;  // a copy: mapping amounts may only look names up here
  for (const auto& r : cluster.snapshot.running) {
    const bool there = std::any_of(r.pods.begin(), r.pods.end(),
                                   [&](const auto& p) { return rooms.contains(p.node); });
    if (!there) continue;
    auto gang = cluster.gangs.find(r.spec.name);
    if (gang == cluster.gangs.end()) continue;
    for (const auto& pod : gang->second.pods) {
      if (!pod.bound()) continue;
      auto room = rooms.find(pod.node());
      if (room == rooms.end()) continue;
      if (auto requests = pod.facts->requests.in(names)) room->second.free -= *requests;
      const std::uint64_t gpus = gpuMask(pod.gpus());
      room->second.taken |= gpus;
      const bool leaving =
          pod.deleting() ||
          std::binary_search(gone.begin(), gone.end(),
                             std::pair<std::string_view, std::string_view>(pod.ns(), pod.name()));
      room->second.holders.push_back({PodRef{pod.ns(), pod.name(), pod.uid()}, gpus, leaving});
    }
  }

  std::map<std::string, std::vector<PodRef>> out;
  for (const auto& record : bindings) {
    auto gang = cluster.gangs.find(record.gang);
    std::map<std::string, Take> takes;
    for (const auto& b : record.bindings) {
      if (!rooms.contains(b.node)) continue;
      Take& t = takes[b.node];
      t.gpus |= gpuMask(b.gpus);
      if (gang == cluster.gangs.end()) continue;
      for (const auto& pod : gang->second.pods)
        if (pod.name() == b.pod && pod.ns() == b.ns) {
          if (auto requests = pod.facts->requests.in(names)) t.requests += *requests;
          break;
        }
    }
    std::vector<PodRef> in_the_way;
    bool blocked = false;
    for (const auto& [node, take] : takes) {
      const Room& room = rooms.at(node);
      const bool gpus_free = (take.gpus & room.taken) == 0;
      const bool fits = take.requests.fitsIn(room.free);
      if (gpus_free && fits) continue;
      blocked = true;
      const bool any_leaving = std::any_of(room.holders.begin(), room.holders.end(),
                                           [](const Holder& h) { return h.leaving; });
      for (const auto& h : room.holders)
        if ((h.gpus & take.gpus) != 0 || (!fits && (h.leaving || !any_leaving)))
          in_the_way.push_back(h.ref);
    }
    if (!blocked) {
      for (const auto& [node, take] : takes) {
        Room& room = rooms.at(node);
        room.free -= take.requests;
        room.taken |= take.gpus;
      }
      continue;
    }
    std::sort(in_the_way.begin(), in_the_way.end(), [](const PodRef& a, const PodRef& b) {
      return std::tie(a.ns, a.pod, a.uid) < std::tie(b.ns, b.pod, b.uid);
    });
    in_the_way.erase(std::unique(in_the_way.begin(), in_the_way.end(),
                                 [](const PodRef& a, const PodRef& b) {
                                   return a.ns == b.ns && a.pod == b.pod && a.uid == b.uid;
                                 }),
                     in_the_way.end());
    auto& room = out[record.gang];  // an empty list: in the way of what has no name
    room.insert(room.end(), in_the_way.begin(), in_the_way.end());
  }
  return out;
}

}  // namespace troupe::controllers
