#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/error.h"
#include "common/result.h"

namespace troupe::api {

// Kubernetes timestamps: RFC 3339 in UTC with second precision ("2025-01-01T00:00:00Z"),
// what metav1.Time writes; parsing also takes fractions and numeric offsets.
std::string formatTimestamp(Time time);
Result<Time> parseTimestamp(std::string_view text, std::string_view field = "");
// Appends an error unless `value` is empty or a valid timestamp. The message matches the
// CRD schema's `format: date-time` check.
void validateTimestamp(const std::string& value, const std::string& path,
                       std::vector<Error>& errors);

}  // namespace troupe::api
