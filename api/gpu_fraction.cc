#include "api/gpu_fraction.h"

#include <fmt/format.h>

#include "api/field_error.h"
#include "api/well_known.h"

namespace troupe::api {

Result<std::int32_t> parseGpuFraction(std::string_view text, const std::string& field) {
  auto bad = [&] {
    return invalid(field, std::string(text),
                   "must be a decimal greater than 0 and less than 1 with at most 3 decimals, "
                   "e.g. \"0.5\"");
  };
  // [0].ddd: an optional leading zero, a point, one to three digits.
  std::string_view rest = text;
  if (!rest.empty() && rest.front() == '0') rest.remove_prefix(1);
  if (rest.size() < 2 || rest.size() > 4 || rest.front() != '.') return bad();
  rest.remove_prefix(1);
  std::int32_t milli = 0;
  std::int32_t scale = 100;
  for (char c : rest) {
    if (c < '0' || c > '9') return bad();
    milli += (c - '0') * scale;
    scale /= 10;
  }
  if (milli <= 0) return bad();
  return milli;
}

void validateGpuFraction(const std::map<std::string, std::string>& annotations,
                         const core::PodSpec& spec, const std::string& meta_path,
                         const std::string& spec_path, std::vector<Error>& errors) {
  auto it = annotations.find(std::string(kGpuFractionAnnotation));
  if (it == annotations.end()) return;
  const std::string field = keyPath(childPath(meta_path, "annotations"), kGpuFractionAnnotation);
  if (auto milli = parseGpuFraction(it->second, field); !milli) {
    errors.push_back(milli.error());
    return;
  }
  const std::string gpu(kGpuResource);
  auto asks_gpu = [&](const Result<ResourceList>& list) {
    if (!list) return false;
    auto q = list->find(gpu);
    return q != list->end() && !q->second.isZero();
  };
  if (asks_gpu(spec.requests()) || asks_gpu(spec.limits()))
    errors.push_back(invalid(
        field, it->second,
        fmt::format("a pod asking for a fraction of one GPU must not also ask for {} (in {})", gpu,
                    childPath(spec_path, "containers[*].resources"))));
}

}  // namespace troupe::api
