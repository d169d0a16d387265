#include "controllers/gpu_milli.h"

#include <algorithm>
#include <string>

#include "api/gpu_fraction.h"
#include "api/well_known.h"

namespace troupe::controllers {

void addGpuMilli(NamedAmounts& amounts, std::int32_t fraction_milli) {
  if (amounts.error) return;
  auto& list = amounts.amounts;
  std::erase_if(list, [](const auto& a) { return a.first == api::kGpuMilliResource; });
  std::int64_t gpus = 0;
  for (const auto& [name, value] : list)
    if (name == api::kGpuResource) gpus = value;
  const std::int64_t milli = gpus * api::kGpuMilliPerGpu + fraction_milli;
  if (milli > 0) list.emplace_back(std::string(api::kGpuMilliResource), milli);
}

bool mirrorGpuQuota(queueing::ResourceVector& quota, queueing::ResourceNames& names) {
  const std::size_t slot = names.slotFor(std::string(api::kGpuMilliResource));
  if (slot == queueing::kMaxResources) return false;
  quota[slot] = quota[queueing::kGpu] >= queueing::ResourceVector::kUnlimited
                    ? quota[queueing::kGpu]
                    : quota[queueing::kGpu] * api::kGpuMilliPerGpu;
  return true;
}

}  // namespace troupe::controllers
