#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace troupe::simulator {

// What one `troupe sim` replay is run with: enough to run it again (toArgs) and to tell
// whether a summary.json came from the same inputs (toJson, written as its "run" key).
struct ReplayInputs {
  std::string trace;
  std::string cluster;
  std::string scale = "1";  // ClusterScale::str()
  std::string policy = "troupe";
  std::optional<int64_t> from_s;
  std::optional<int64_t> to_s;
  int64_t checkpoint_interval_s = 1800;
  bool elastic = false;
  std::string topology = "preferred";

  nlohmann::json toJson() const;
  // The `troupe sim` arguments after "sim" that run it, writing to `out`.
  std::vector<std::string> toArgs(const std::string& out) const;
};

}  // namespace troupe::simulator
