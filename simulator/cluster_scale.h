#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"
#include "simulator/cluster_spec.h"

namespace troupe::simulator {

// A factor that resizes a cluster file, kept as an exact fraction so that 1/6 rounds the
// same way on every machine: `numerator / denominator`, both > 0 and reduced.
struct ClusterScale {
  int64_t numerator = 1;
  int64_t denominator = 1;

  bool isOne() const { return numerator == denominator; }
  // "1", "1/6", "3/2": the reduced fraction.
  std::string str() const;
  // The factor as a double, for display and load figures only.
  double value() const { return static_cast<double>(numerator) / static_cast<double>(denominator); }
  friend bool operator==(const ClusterScale&, const ClusterScale&) = default;
};

// Reads "1/6", "0.25", "2" or "1.5": a fraction of two whole numbers or a decimal (at most
// 6 digits after the point), > 0, whose reduced terms are at most 1,000,000. Errors name
// `field`.
Result<ClusterScale> parseClusterScale(std::string_view text, const std::string& field);

// The cluster with every node pool's count and every queue's guarantee and limit
// multiplied by `scale` (docs/simulator.md, "Scaling a cluster"):
//  - a pool of c nodes keeps round(c x scale) nodes, halves rounded up, at least 1; its
//    nodes are named and racked as the file's pool with that count would be;
//  - a guarantee or limit of g GPUs becomes floor(g x scale). Rounding down keeps the
//    file's rules: children's guarantees still add up to at most their parent's (a sum
//    of floors is at most the floor of the sum) and a limit stays at least its guarantee.
// Nodes listed one by one (`nodes:`) cannot be multiplied: with any scale but 1 they are
// an error naming `field`.
Result<ClusterSpec> scaleCluster(const ClusterSpec& cluster, ClusterScale scale,
                                 const std::string& field);

}  // namespace troupe::simulator
