#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "queueing/engine_state.h"

namespace troupe::queueing {

// A journal of tentative node-capacity changes (KAI's Statement, without its quadratic
// undo): release victims' pods, try a placement, then roll back to a checkpoint. The
// destructor rolls back whatever is left, so a Statement never leaks a change; decided
// operations are then applied through the EngineState lifecycle calls.
class Statement {
 public:
  explicit Statement(EngineState& st)
      : st_(st), release_version_(st.versions.release), capacity_version_(st.versions.capacity) {}
  ~Statement() { rollbackTo(0); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void release(GangId g, const Pod& pod) {
    release(pod.node, HeldCapacity{st_.requestOf(g, pod.pod_set), pod.gpus, pod.gpu_milli});
  }
  // Capacity held on node n, not one pod's (what terminating pods hold there).
  void release(NodeId n, const HeldCapacity& held) {
    st_.releaseOnNode(n, held.requests, held.gpus, held.gpu_milli);
    ops_.emplace_back(n, held);
  }
  std::size_t checkpoint() const { return ops_.size(); }
  void rollbackTo(std::size_t checkpoint) {
    while (ops_.size() > checkpoint) {
      const auto [n, held] = ops_.back();
      ops_.pop_back();
      st_.takeOnNode(n, held.requests, held.gpus, held.gpu_milli);
    }
    if (ops_.empty()) {
      // Everything undone: capacity is as it was, so caches keyed on it stay valid.
      st_.versions.release = release_version_;
      st_.versions.capacity = capacity_version_;
    }
  }

 private:
  EngineState& st_;
  std::vector<std::pair<NodeId, HeldCapacity>> ops_;
  std::uint64_t release_version_;
  std::uint64_t capacity_version_;
};

}  // namespace troupe::queueing
