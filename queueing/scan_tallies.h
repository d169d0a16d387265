#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "queueing/gpu_picker.h"
#include "queueing/ids.h"
#include "queueing/placement_memo.h"
#include "queueing/resource_vector.h"

namespace troupe::queueing {

// What a placement scan found for one kind and pod count on free capacity, brought up to
// date from the capacity log instead of scanning again: a cycle admitting thousands of
// gangs of one kind otherwise scans every eligible node for each (gang_placer.cc).
struct ScanTally {
  KindId kind = kNoKind;
  std::int64_t want = 0;
  std::uint64_t node_epoch = 0;
  std::size_t log_pos = 0;         // capacity_log entries already applied
  std::vector<std::int64_t> pods;  // by node id: pods of the kind it holds, up to want
  std::array<std::vector<std::int64_t>, kMaxLevels> domain_pods;  // by level, by domain
  std::int64_t total = 0;
  std::uint64_t last_use = 0;
};

// The scan tallies of the current cycle (Policy::share_placement_scans), and the log of
// nodes whose free capacity changed that brings them up to date.
struct ScanTallies {
  static constexpr std::size_t kMax = 4;
  // Nodes whose free capacity changed, in order: every EngineState::takeOnNode and
  // releaseOnNode appends one (a Statement's tentative changes and their rollbacks too).
  // Invariant: a tally's log_pos is at most its size; both are cleared together.
  std::vector<NodeId> capacity_log;
  std::vector<ScanTally> tallies;  // at most kMax, the least recently used replaced
  std::uint64_t clock = 0;         // for last_use
  // Kept within one cycle only: between cycles nodes and gangs change through paths the
  // capacity log does not cover.
  void forget() {
    capacity_log.clear();
    tallies.clear();
  }
};

// The placer's scratch overlay: the capacity left on each node after the pods a placement
// attempt put there so far, valid for nodes stamped with the current epoch. Reused across
// calls (sized by node and domain count).
struct PlacerScratch {
  std::vector<std::uint32_t> stamp;
  std::vector<ResourceVector> free;
  std::vector<std::uint64_t> gpus;
  std::vector<GpuShares> shares;  // NodeState::gpu_shares with the placement's pods
  std::uint32_t epoch = 0;
  std::array<std::vector<std::int64_t>, kMaxLevels> domain_pods;
};

}  // namespace troupe::queueing
