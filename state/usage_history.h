#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "common/result.h"
#include "state/state_database.h"

namespace troupe::state {

// A queue's exponentially decayed usage (queueing/usage.h), by resource name, in the
// engine's units (GPUs, CPU millicores, memory bytes), and when it was last advanced.
struct QueueUsage {
  std::map<std::string, std::int64_t> usage;
  std::int64_t updated_at = 0;  // seconds since the epoch

  friend bool operator==(const QueueUsage&, const QueueUsage&) = default;
};

// The usage history the fair share decays, one row per queue. The local copy is the
// operator's working state; it is mirrored into each Queue's troupe.dev/decayed-usage
// annotation so that a new leader on another machine starts from it too
// (docs/state-store.md). On start the newer of the two wins (newerOf).
class UsageHistory {
 public:
  explicit UsageHistory(StateDatabase& db) : db_(&db) {}

  Status save(const std::string& queue, const QueueUsage& usage);
  Status forget(const std::string& queue);
  Result<std::map<std::string, QueueUsage>> load() const;

 private:
  StateDatabase* db_;
};

// The annotation that mirrors a queue's usage in the API: {"at":N,"usage":{"cpu":N,...}}.
inline constexpr const char* kDecayedUsageAnnotation = "troupe.dev/decayed-usage";
std::string encodeUsageAnnotation(const QueueUsage& usage);
// A missing or damaged annotation is an error naming the annotation; callers start from
// zero usage then.
Result<QueueUsage> decodeUsageAnnotation(std::string_view text);

// The more recent of two copies; `local` on a tie.
const QueueUsage& newerOf(const QueueUsage& local, const QueueUsage& mirrored);

}  // namespace troupe::state
