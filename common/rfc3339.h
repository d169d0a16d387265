#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/clock.h"

// RFC 3339 timestamps as Kubernetes writes and reads them: the one codec of the project's
// times (object metadata and status, Events, Leases, log lines).
namespace troupe {

// UTC with `fraction_digits` (0 to 9) of the second, the rest dropped: 0 writes
// "2026-11-23T02:01:36Z" (metav1.Time), 6 writes "2026-11-23T02:01:36.123456Z"
// (metav1.MicroTime, a Lease's renewTime), 3 the milliseconds of a log line.
std::string formatRfc3339(Time t, int fraction_digits = 0);
// "YYYY-MM-DD(T|t| )HH:MM:SS[.fraction](Z|z|+HH:MM|-HH:MM)", the fraction of one to nine
// digits and kept to the nanosecond; nullopt for anything else, or a month, day, hour,
// minute or second out of its range.
std::optional<Time> parseRfc3339(std::string_view text);

}  // namespace troupe
