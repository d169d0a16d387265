#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "state/state_database.h"

namespace troupe::state {

// One pod of an admitted gang and where it goes.
struct PlannedBinding {
  std::string ns;
  std::string pod;
  std::string node;
  std::vector<int> gpus;
  // The GPUType its gang was admitted on (queueing::Admission::variant); "" for none.
  std::string gpu_type;

  friend bool operator==(const PlannedBinding&, const PlannedBinding&) = default;
};

// A gang admission about to be carried out: every binding of the gang.
struct AdmissionRecord {
  std::string gang;  // "namespace/name" of the PodGroup
  std::string queue;
  std::int64_t cycle = 0;
  std::int64_t written_at = 0;  // seconds since the epoch
  std::vector<PlannedBinding> bindings;

  friend bool operator==(const AdmissionRecord&, const AdmissionRecord&) = default;
};

// The write-ahead journal of gang admissions. The scheduler loop writes a record before
// the first binding of a gang and erases it once the last binding is acknowledged, so a
// record still present at start-up names exactly the gangs that may be half bound; the
// recovery planner (controllers/admission_recovery.h) then finishes or rolls back each.
//
// At most one record per gang: a gang is admitted at most once at a time.
class AdmissionJournal {
 public:
  explicit AdmissionJournal(StateDatabase& db) : db_(&db) {}

  // Durable when it returns ok. AlreadyExists when the gang has an open record.
  Status begin(const AdmissionRecord& record);
  // Closes the gang's record (all bound, or rolled back). Closing a gang without a record
  // is not an error: recovery and the normal path may both close it.
  Status complete(const std::string& gang);
  // Every open record, sorted by gang.
  Result<std::vector<AdmissionRecord>> open() const;
  Result<std::optional<AdmissionRecord>> find(const std::string& gang) const;

 private:
  StateDatabase* db_;
};

}  // namespace troupe::state
