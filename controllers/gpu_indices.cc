#include "controllers/gpu_indices.h"

#include <fmt/format.h>

#include <exception>
#include <sstream>

namespace troupe::controllers {

std::vector<int> parseGpuIndices(const std::string& text) {
  std::vector<int> out;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) {
    if (part.empty()) continue;
    try {
      std::size_t used = 0;
      int v = std::stoi(part, &used);
      if (used != part.size() || v < 0 || v > 63) return {};
      out.push_back(v);
    } catch (const std::exception&) {
      return {};
    }
  }
  return out;
}

std::string formatGpuIndices(const std::vector<int>& gpus) {
  return fmt::format("{}", fmt::join(gpus, ","));
}

}  // namespace troupe::controllers
