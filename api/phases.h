#pragma once
// The phases Troupe writes into status.phase (docs/api.md lists each; a test keeps them in
// step). The controllers write only these: writing another stops the operator.
#include <algorithm>
#include <iterator>
#include <string_view>

namespace troupe::api {

inline constexpr std::string_view kTrainingJobPhases[] = {
    "Queued", "Admitted", "Running", "Suspended", "Succeeded", "Failed",
};
inline constexpr std::string_view kPodGroupPhases[] = {
    "Pending", "Admitted", "Running", "Succeeded", "Failed",
};

template <std::size_t N>
constexpr bool isListedPhase(const std::string_view (&phases)[N], std::string_view phase) {
  return std::find(std::begin(phases), std::end(phases), phase) != std::end(phases);
}

}  // namespace troupe::api
