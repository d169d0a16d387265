#include "controllers/lone_pod_groups.h"

#include <algorithm>
#include <string_view>
#include <utility>

#include "controllers/lone_pod.h"

namespace troupe::controllers {

ObjectList LonePodGroups::complete(const ObjectList& groups, const ObjectList& pods,
                                   const FactsCache<PodFacts>& pod_facts) {
  // The live lone pods by their group's key.
  std::vector<std::pair<std::string_view, std::size_t>> lone;
  for (std::size_t i = 0; i < pods.size(); ++i) {
    const PodFacts& pod = pod_facts[i];
    if (pod.lone && !pod.terminated) lone.emplace_back(pod.group, i);
  }
  if (lone.empty()) {
    made_.clear();
    return groups;
  }
  std::stable_sort(lone.begin(), lone.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> in_api;
  in_api.reserve(groups.size());
  for (const auto& g : groups) in_api.push_back(keyOf(g));
  const bool sorted = std::is_sorted(in_api.begin(), in_api.end());
  std::vector<std::string> in_api_sorted;
  if (!sorted) {
    in_api_sorted = in_api;
    std::sort(in_api_sorted.begin(), in_api_sorted.end());
  }
  const auto& lookup = sorted ? in_api : in_api_sorted;

  // The groups to add, made anew only for pods changed since the last cycle; walked beside
  // the last cycle's, both in key order.
  std::vector<Made> made;
  std::size_t j = 0;
  for (const auto& [key, i] : lone) {
    if (!made.empty() && made.back().key == key) continue;  // one group a key
    if (std::binary_search(lookup.begin(), lookup.end(), key)) continue;
    while (j < made_.size() && made_[j].key < key) ++j;
    const ObjectRef& pod = pods.ref(i);
    if (j < made_.size() && made_[j].key == key && made_[j].pod == pod) {
      made.push_back(std::move(made_[j++]));
      continue;
    }
    auto group = lonePodGroup(*pod);
    if (!group) continue;  // names no queue: the pod is told so, and stays out
    if (j < made_.size() && made_[j].key == key && *made_[j].group == *group) {
      made.push_back({std::string(key), pod, std::move(made_[j++].group)});
      continue;
    }
    made.push_back({std::string(key), pod, std::make_shared<const Json>(std::move(*group))});
  }
  made_ = std::move(made);
  if (made_.empty()) return groups;

  // Both in key order: merged, so the listing keeps the caches' order.
  std::vector<ObjectRef> out;
  out.reserve(groups.size() + made_.size());
  std::size_t m = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    while (sorted && m < made_.size() && made_[m].key < in_api[g]) out.push_back(made_[m++].group);
    out.push_back(groups.ref(g));
  }
  while (m < made_.size()) out.push_back(made_[m++].group);
  return ObjectList(std::move(out));
}

}  // namespace troupe::controllers
