#include "state/job_accounting.h"

#include <fmt/format.h>

namespace troupe::state {
namespace {

constexpr const char* kColumns =
    "job, queue, submit_time, first_admit_time, running_since, running_gpus, gpu_seconds, "
    "wait_seconds, admissions, preemptions, restarts";

Result<std::vector<JobAccount>> query(SqliteConnection& c, const std::string* job) {
  auto stmt = c.cached(fmt::format("SELECT {} FROM job_accounting {} ORDER BY job", kColumns,
                                   job ? "WHERE job = ?1" : ""));
  if (!stmt) return stmt.error();
  if (job) stmt->bind(1, *job);
  std::vector<JobAccount> out;
  while (true) {
    auto row = stmt->step();
    if (!row) return row.error();
    if (!*row) break;
    JobAccount a;
    a.job = std::string(stmt->columnText(0));
    a.queue = std::string(stmt->columnText(1));
    a.submit_time = stmt->columnInt(2);
    if (!stmt->columnIsNull(3)) a.first_admit_time = stmt->columnInt(3);
    if (!stmt->columnIsNull(4)) a.running_since = stmt->columnInt(4);
    a.running_gpus = stmt->columnInt(5);
    a.gpu_seconds = stmt->columnInt(6);
    a.wait_seconds = stmt->columnInt(7);
    a.admissions = stmt->columnInt(8);
    a.preemptions = stmt->columnInt(9);
    a.restarts = stmt->columnInt(10);
    out.push_back(std::move(a));
  }
  return out;
}

Status runSql(SqliteConnection& c, const char* sql, const std::string& job, std::int64_t a,
              std::int64_t b) {
  auto stmt = c.cached(sql);
  if (!stmt) return stmt.error();
  stmt->bind(1, job).bind(2, a).bind(3, b);
  return stmt->run();
}

Error unknownJob(const std::string& job) {
  return makeError(ErrorCode::NotFound, "job",
                   fmt::format("job {} has no accounting row: record its submission first", job));
}

}  // namespace

Status JobAccounting::submitted(const std::string& job, const std::string& queue, std::int64_t at) {
  auto stmt = db_->connection().cached(
      "INSERT INTO job_accounting (job, queue, submit_time) VALUES (?1, ?2, ?3) "
      "ON CONFLICT(job) DO NOTHING");
  if (!stmt) return stmt.error();
  stmt->bind(1, job).bind(2, queue).bind(3, at);
  return stmt->run();
}

Status JobAccounting::started(const std::string& job, std::int64_t at, std::int64_t gpus) {
  auto found = find(job);
  if (!found) return found.error();
  if (!found->has_value()) return unknownJob(job);
  if ((*found)->running_since) return {};
  return runSql(db_->connection(),
                "UPDATE job_accounting SET running_since = ?2, running_gpus = ?3, "
                "admissions = admissions + 1, "
                "wait_seconds = CASE WHEN first_admit_time IS NULL THEN ?2 - submit_time "
                "ELSE wait_seconds END, "
                "first_admit_time = COALESCE(first_admit_time, ?2) WHERE job = ?1",
                job, at, gpus);
}

Status JobAccounting::resized(const std::string& job, std::int64_t at, std::int64_t gpus) {
  auto found = find(job);
  if (!found) return found.error();
  if (!found->has_value()) return unknownJob(job);
  if (!(*found)->running_since) return started(job, at, gpus);
  return runSql(db_->connection(),
                "UPDATE job_accounting SET gpu_seconds = gpu_seconds + "
                "(?2 - running_since) * running_gpus, running_since = ?2, running_gpus = ?3 "
                "WHERE job = ?1",
                job, at, gpus);
}

Status JobAccounting::stopped(const std::string& job, std::int64_t at, StopReason reason) {
  auto found = find(job);
  if (!found) return found.error();
  if (!found->has_value()) return unknownJob(job);
  std::int64_t preempted = reason == StopReason::Preempted ? 1 : 0;
  std::int64_t restarted = reason == StopReason::Restarted ? 1 : 0;
  auto& c = db_->connection();
  if ((*found)->running_since) {
    auto s = runSql(c,
                    "UPDATE job_accounting SET gpu_seconds = gpu_seconds + "
                    "(?2 - running_since) * running_gpus, running_since = NULL, "
                    "running_gpus = ?3 WHERE job = ?1",
                    job, at, 0);
    if (!s) return s;
  }
  return runSql(c,
                "UPDATE job_accounting SET preemptions = preemptions + ?2, "
                "restarts = restarts + ?3 WHERE job = ?1",
                job, preempted, restarted);
}

Status JobAccounting::forget(const std::string& job) {
  auto stmt = db_->connection().cached("DELETE FROM job_accounting WHERE job = ?1");
  if (!stmt) return stmt.error();
  stmt->bind(1, job);
  return stmt->run();
}

Result<std::optional<JobAccount>> JobAccounting::find(const std::string& job) const {
  auto rows = query(db_->connection(), &job);
  if (!rows) return rows.error();
  if (rows->empty()) return std::optional<JobAccount>();
  return std::optional<JobAccount>(std::move(rows->front()));
}

Result<std::vector<JobAccount>> JobAccounting::all() const {
  return query(db_->connection(), nullptr);
}

}  // namespace troupe::state
