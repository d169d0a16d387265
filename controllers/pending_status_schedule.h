#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

// Which waiting gangs' status.pending the scheduling loop compares with the engine's explanation
// in a cycle.
//
// Comparing every waiting gang every cycle cost about 14 µs of CPU each (building the
// explanation and its JSON, reading the job from the cache): 0.3 s a cycle with 20,000 jobs
// waiting, a cycle the operator spent mostly on jobs whose explanation had not changed. A gang's
// reason changes only when the engine says so (Decisions::explained), and its numbers (the
// queue's allocation and fair share, the largest free domain) are refreshed only now and then
// anyway. So a cycle compares the gangs the engine named, plus the gangs whose next comparison
// is due, at most `budget` of those, the earliest first. A gang that leaves the waiting gangs is
// simply not scheduled again; a comparison also repairs a status someone else changed, so every
// waiting job's status.pending is made right within the refresh time (longer only when more
// gangs wait than the budget covers in that time).
namespace troupe::controllers {

class PendingStatusSchedule {
 public:
  explicit PendingStatusSchedule(std::size_t budget) : budget_(budget) {}

  struct Due {
    std::string gang;
    std::optional<std::int64_t> written_at;  // when its status.pending was last written
  };

  // The gangs to compare at time t: every gang of `named` (sorted, unique), then those
  // whose comparison is due at t, by due time then name. Each is taken off the schedule:
  // checked() puts back those still waiting.
  std::vector<Due> take(const std::vector<std::string>& named, std::int64_t t);

  // After comparing `gang`: compare it again at `next` unless the engine names it sooner.
  void checked(const std::string& gang, std::optional<std::int64_t> written_at, std::int64_t next);

  std::size_t size() const { return entries_.size(); }
  void clear();

 private:
  struct Entry {
    std::int64_t next = 0;
    std::optional<std::int64_t> written_at;
  };
  std::optional<Due> remove(const std::string& gang);

  std::size_t budget_;
  std::map<std::string, Entry> entries_;                    // by gang
  std::set<std::pair<std::int64_t, std::string>> by_time_;  // (next, gang)
};

}  // namespace troupe::controllers
