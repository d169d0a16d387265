#pragma once

#include <string>

// How `kubectl troupe` writes numbers and times.
namespace troupe::cli {

// An amount of `resource`: bytes as Gi or Mi for memory and storage, at most two decimals
// otherwise ("8", "0.5").
std::string amountText(const std::string& resource, double amount);
// "nvidia.com/gpu" -> "GPU"; other names as they are.
std::string resourceLabel(const std::string& resource);
// 45 -> "45s", 192 -> "3m12s", 7500 -> "2h5m", 97200 -> "1d3h"; negative: "-".
std::string durationText(double seconds);

}  // namespace troupe::cli
