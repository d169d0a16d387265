#include "simulator/replay_inputs.h"

#include <fmt/format.h>

namespace troupe::simulator {

nlohmann::json ReplayInputs::toJson() const {
  nlohmann::json out = {{"trace", trace},
                        {"cluster", cluster},
                        {"scale", scale},
                        {"policy", policy},
                        {"checkpoint_interval_s", checkpoint_interval_s},
                        {"elastic", elastic},
                        {"topology", topology}};
  out["from_s"] = from_s ? nlohmann::json(*from_s) : nlohmann::json(nullptr);
  out["to_s"] = to_s ? nlohmann::json(*to_s) : nlohmann::json(nullptr);
  return out;
}

std::vector<std::string> ReplayInputs::toArgs(const std::string& out) const {
  std::vector<std::string> args = {"--trace", trace,      "--cluster", cluster, "--scale",
                                   scale,     "--policy", policy,      "--out", out};
  if (from_s) args.insert(args.end(), {"--from", fmt::format("{}", *from_s)});
  if (to_s) args.insert(args.end(), {"--to", fmt::format("{}", *to_s)});
  args.insert(args.end(), {"--checkpoint-interval", fmt::format("{}", checkpoint_interval_s),
                           "--topology", topology, "--quiet"});
  if (elastic) args.push_back("--elastic");
  return args;
}

}  // namespace troupe::simulator
