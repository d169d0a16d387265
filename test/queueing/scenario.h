#pragma once

// Helpers to run engine scenarios and read their decisions.

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "queueing/engine.h"
#include "test/queueing/builders.h"

namespace troupe::queueing::testing {

inline Engine engineWith(const std::vector<NodeSpec>& nodes, const std::vector<QueueSpec>& queues,
                         Policy policy = {}) {
  Engine e(std::move(policy));
  for (const auto& n : nodes) REQUIRE(e.upsertNode(n).ok());
  for (const auto& q : queues) REQUIRE(e.upsertQueue(q).ok());
  return e;
}

// The explanation of `gang` if the cycle that gave `d` named it as changed (else none).
inline std::optional<PendingExplanation> pendingOf(const Engine& e, const Decisions& d,
                                                   const std::string& gang) {
  if (!std::binary_search(d.explained.begin(), d.explained.end(), gang)) return std::nullopt;
  auto x = e.explanation(gang);
  REQUIRE(x.has_value());  // every gang named is pending, so it has an explanation
  return x;
}

inline PendingReason reasonOf(const Engine& e, const std::string& gang) {
  auto x = e.explanation(gang);
  REQUIRE(x.has_value());
  return x->reason;
}

inline const Admission* admissionOf(const Decisions& d, const std::string& gang) {
  for (const auto& a : d.admissions)
    if (a.gang == gang) return &a;
  return nullptr;
}

inline bool admitted(const Decisions& d, const std::string& gang) {
  return admissionOf(d, gang) != nullptr;
}

inline std::set<std::string> preempted(const Decisions& d) {
  std::set<std::string> out;
  for (const auto& p : d.preemptions) out.insert(p.gang);
  return out;
}

inline std::set<std::string> nodesOf(const Admission& a) {
  std::set<std::string> out;
  for (const auto& p : a.pods) out.insert(p.node);
  return out;
}

// Puts a running gang of `pods` pods x `gpus` GPUs on the named nodes, GPUs from 0 up.
inline RunningGang runningOn(GangSpec spec, const std::vector<std::string>& nodes,
                             Seconds started = 0) {
  RunningGang r;
  r.spec = std::move(spec);
  r.start_time = started;
  const auto gpus = static_cast<int>(r.spec.pod_sets[0].shape->requests[kGpu]);
  std::vector<int> next(nodes.size(), 0);
  std::map<std::string, int> used;
  for (const auto& n : nodes) {
    PodPlacement p;
    p.pod_set = 0;
    p.node = n;
    for (int i = 0; i < gpus; ++i) p.gpus.push_back(used[n]++);
    r.pods.push_back(p);
  }
  return r;
}

}  // namespace troupe::queueing::testing
