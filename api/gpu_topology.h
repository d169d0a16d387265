#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace troupe::api {

// The value of the troupe.dev/gpu-topology node annotation: the node's GPU indices grouped
// by NVLink island and by NUMA node. A group lists distinct non-negative indices and no
// index appears in two groups of the same kind. Either list may be empty (unknown).
struct GpuTopology {
  std::vector<std::vector<int>> nvlink_islands;
  std::vector<std::vector<int>> numa;

  friend bool operator==(const GpuTopology&, const GpuTopology&) = default;
};

// Parses the annotation; errors name `field` (e.g.
// `metadata.annotations[troupe.dev/gpu-topology]`).
Result<GpuTopology> parseGpuTopology(std::string_view annotation, std::string_view field);
// The annotation text for a topology, in the key order of the documented example.
std::string formatGpuTopology(const GpuTopology& topology);

}  // namespace troupe::api
