#include "kubelet/pod_simulation.h"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include "api/well_known.h"

namespace troupe::kubelet {

namespace {

using json = nlohmann::json;

constexpr double kMaxSeconds = 10.0 * 365 * 24 * 3600;

std::string fieldOf(std::string_view annotation) {
  return fmt::format("metadata.annotations[{}]", annotation);
}

// The annotation's text, or nullopt when absent. A non-string value is an error.
Result<std::optional<std::string>> annotation(const json& pod, std::string_view name) {
  auto meta = pod.find("metadata");
  if (meta == pod.end() || !meta->is_object()) return std::optional<std::string>{};
  auto annotations = meta->find("annotations");
  if (annotations == meta->end() || !annotations->is_object()) return std::optional<std::string>{};
  auto value = annotations->find(std::string(name));
  if (value == annotations->end()) return std::optional<std::string>{};
  if (!value->is_string()) return makeError(ErrorCode::Invalid, fieldOf(name), "must be a string");
  return std::optional<std::string>{value->get<std::string>()};
}

Result<std::optional<double>> seconds(const json& pod, std::string_view name) {
  auto text = annotation(pod, name);
  if (!text) return text.error();
  if (!text->has_value()) return std::optional<double>{};
  const std::string& s = **text;
  char* end = nullptr;
  errno = 0;
  double value = std::strtod(s.c_str(), &end);
  bool whole = !s.empty() && end == s.c_str() + s.size() && errno == 0;
  if (!whole || !std::isfinite(value) || value < 0 || value > kMaxSeconds) {
    return makeError(ErrorCode::Invalid, fieldOf(name),
                     fmt::format("Invalid value: \"{}\": must be a decimal number of seconds "
                                 "from 0 to {:.0f}",
                                 s, kMaxSeconds));
  }
  return std::optional<double>{value};
}

}  // namespace

Result<PodSimulation> readPodSimulation(const json& pod) {
  PodSimulation sim;
  auto start = seconds(pod, kSimStartAnnotation);
  if (!start) return start.error();
  if (*start) sim.start_seconds = **start;
  auto duration = seconds(pod, api::kSimDurationAnnotation);
  if (!duration) return duration.error();
  sim.duration_seconds = *duration;
  auto termination = seconds(pod, kSimTerminationAnnotation);
  if (!termination) return termination.error();
  if (*termination) sim.termination_seconds = **termination;

  auto exit_text = annotation(pod, api::kSimExitCodeAnnotation);
  if (!exit_text) return exit_text.error();
  if (exit_text->has_value()) {
    const std::string& s = **exit_text;
    char* end = nullptr;
    errno = 0;
    long code = std::strtol(s.c_str(), &end, 10);
    if (s.empty() || end != s.c_str() + s.size() || errno != 0 || code < 0 || code > 255) {
      return makeError(ErrorCode::Invalid, fieldOf(api::kSimExitCodeAnnotation),
                       fmt::format("Invalid value: \"{}\": must be an integer from 0 to 255", s));
    }
    sim.exit_code = static_cast<int>(code);
  }
  return sim;
}

}  // namespace troupe::kubelet
