#pragma once

#include <string>
#include <vector>

// The troupe.dev/gpu-indices annotation: which GPUs of its node a pod holds, "0,1,2,3".
namespace troupe::controllers {

// "0,1,2,3" <-> {0,1,2,3}; an empty or damaged annotation reads as no GPUs.
std::vector<int> parseGpuIndices(const std::string& text);
std::string formatGpuIndices(const std::vector<int>& gpus);

}  // namespace troupe::controllers
