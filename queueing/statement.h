#pragma once

#include <cstddef>
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
  explicit Statement(EngineState& st) : st_(st) {}
  ~Statement() { rollbackTo(0); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void release(GangId g, const Pod& pod) {
    st_.releaseOnNode(pod.node, st_.requestOf(g, pod.pod_set), pod.gpus);
    ops_.emplace_back(g, pod);
  }
  std::size_t checkpoint() const { return ops_.size(); }
  void rollbackTo(std::size_t checkpoint) {
    while (ops_.size() > checkpoint) {
      const auto [g, pod] = ops_.back();
      ops_.pop_back();
      st_.takeOnNode(pod.node, st_.requestOf(g, pod.pod_set), pod.gpus);
    }
  }

 private:
  EngineState& st_;
  std::vector<std::pair<GangId, Pod>> ops_;
};

}  // namespace troupe::queueing
