#include "queueing/kept_guarantee.h"

#include <algorithm>

#include "queueing/engine_state.h"

namespace troupe::queueing {

ResourceVector KeptGuarantees::own(const QueueSpec& spec, const ResourceVector& allocated) {
  ResourceVector out;
  for (std::size_t r = 0; r < kMaxResources; ++r) {
    if (spec.lending_limit[r] >= spec.guaranteed[r]) continue;
    out[r] = std::max<std::int64_t>(0, spec.guaranteed[r] - spec.lending_limit[r] - allocated[r]);
  }
  return out;
}

bool KeptGuarantees::keepsAny(const QueueSpec& spec) {
  for (std::size_t r = 0; r < kMaxResources; ++r)
    if (spec.lending_limit[r] < spec.guaranteed[r]) return true;
  return false;
}

void KeptGuarantees::refresh(const EngineState& st) {
  // Specs and the tree change only between cycles; allocations move alloc_version.
  const bool specs_moved = cycle_ != st.cycle || queue_count_ != st.queues.size();
  if (!specs_moved && alloc_version_ == st.versions.alloc) return;
  alloc_version_ = st.versions.alloc;
  if (specs_moved) {
    cycle_ = st.cycle;
    queue_count_ = st.queues.size();
    any_ = false;
    for (const QueueState& q : st.queues) any_ = any_ || (q.present && keepsAny(q.spec));
    // Children after their parent in a breadth-first order from the top: backwards, it is
    // bottom-up.
    bottom_up_.clear();
    for (QueueId q = 0; q < static_cast<QueueId>(st.queues.size()); ++q) {
      const QueueState& qs = st.queues[static_cast<std::size_t>(q)];
      if (qs.present && qs.parent < 0) bottom_up_.push_back(q);
    }
    for (std::size_t i = 0; i < bottom_up_.size(); ++i)
      for (QueueId c : st.queues[static_cast<std::size_t>(bottom_up_[i])].children)
        if (st.queues[static_cast<std::size_t>(c)].present) bottom_up_.push_back(c);
    std::reverse(bottom_up_.begin(), bottom_up_.end());
    if (any_) compute(st, true, empty_);
  }
  if (any_) compute(st, false, live_);
}

void KeptGuarantees::compute(const EngineState& st, bool empty, Amounts& out) const {
  out.keeps.assign(st.queues.size(), ResourceVector{});
  out.children.assign(st.queues.size(), ResourceVector{});
  out.top = ResourceVector{};
  for (QueueId q : bottom_up_) {
    const auto i = static_cast<std::size_t>(q);
    const QueueState& qs = st.queues[i];
    out.keeps[i] =
        ResourceVector::max(own(qs.spec, empty ? ResourceVector{} : qs.allocated), out.children[i]);
    if (qs.parent < 0)
      out.top += out.keeps[i];
    else
      out.children[static_cast<std::size_t>(qs.parent)] += out.keeps[i];
  }
}

}  // namespace troupe::queueing
