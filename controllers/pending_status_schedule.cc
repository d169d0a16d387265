#include "controllers/pending_status_schedule.h"

namespace troupe::controllers {

std::optional<PendingStatusSchedule::Due> PendingStatusSchedule::remove(const std::string& gang) {
  auto it = entries_.find(gang);
  if (it == entries_.end()) return std::nullopt;
  Due due{gang, it->second.written_at};
  by_time_.erase({it->second.next, gang});
  entries_.erase(it);
  return due;
}

std::vector<PendingStatusSchedule::Due> PendingStatusSchedule::take(
    const std::vector<std::string>& named, std::int64_t t) {
  std::vector<Due> out;
  out.reserve(named.size());
  for (const auto& gang : named) {
    auto due = remove(gang);
    out.push_back(due ? std::move(*due) : Due{gang, std::nullopt});
  }
  std::size_t refreshed = 0;
  while (!by_time_.empty() && refreshed < budget_ && by_time_.begin()->first <= t) {
    const std::string gang = by_time_.begin()->second;
    out.push_back(*remove(gang));
    ++refreshed;
  }
  return out;
}

void PendingStatusSchedule::checked(const std::string& gang, std::optional<std::int64_t> written_at,
                                    std::int64_t next) {
  remove(gang);
  entries_.emplace(gang, Entry{next, written_at});
  by_time_.emplace(next, gang);
}

void PendingStatusSchedule::clear() {
  entries_.clear();
  by_time_.clear();
}

}  // namespace troupe::controllers
