#include "state/admission_journal.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace troupe::state {
namespace {

std::string encodeBindings(const std::vector<PlannedBinding>& bindings) {
  auto list = nlohmann::json::array();
  for (const auto& b : bindings) {
    nlohmann::json item{{"namespace", b.ns}, {"pod", b.pod}, {"node", b.node}, {"gpus", b.gpus}};
    if (!b.gpu_type.empty()) item["gpuType"] = b.gpu_type;
    list.push_back(std::move(item));
  }
  return list.dump();
}

Result<std::vector<PlannedBinding>> decodeBindings(const std::string& gang, std::string_view text) {
  auto list = nlohmann::json::parse(text, nullptr, false);
  if (!list.is_array()) {
    return makeError(ErrorCode::Internal, "admission_journal.placements",
                     fmt::format("the record of gang {} is not a JSON array", gang));
  }
  std::vector<PlannedBinding> out;
  try {
    for (const auto& item : list) {
      out.push_back(PlannedBinding{
          item.at("namespace").get<std::string>(), item.at("pod").get<std::string>(),
          item.at("node").get<std::string>(), item.at("gpus").get<std::vector<int>>(),
          item.value("gpuType", std::string())});
    }
  } catch (const nlohmann::json::exception& e) {
    return makeError(ErrorCode::Internal, "admission_journal.placements",
                     fmt::format("the record of gang {} is damaged: {}", gang, e.what()));
  }
  return out;
}

Result<std::vector<AdmissionRecord>> query(SqliteConnection& c, const std::string& gang) {
  auto stmt = c.cached(gang.empty() ? "SELECT gang, queue, cycle, written_at, placements FROM "
                                      "admission_journal ORDER BY gang"
                                    : "SELECT gang, queue, cycle, written_at, placements FROM "
                                      "admission_journal WHERE gang = ?1");
  if (!stmt) return stmt.error();
  if (!gang.empty()) stmt->bind(1, gang);
  std::vector<AdmissionRecord> out;
  while (true) {
    auto row = stmt->step();
    if (!row) return row.error();
    if (!*row) break;
    AdmissionRecord r;
    r.gang = std::string(stmt->columnText(0));
    r.queue = std::string(stmt->columnText(1));
    r.cycle = stmt->columnInt(2);
    r.written_at = stmt->columnInt(3);
    auto bindings = decodeBindings(r.gang, stmt->columnText(4));
    if (!bindings) return bindings.error();
    r.bindings = std::move(*bindings);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

Status AdmissionJournal::begin(const AdmissionRecord& record) {
  auto existing = find(record.gang);
  if (!existing) return existing.error();
  if (existing->has_value()) {
    return makeError(ErrorCode::AlreadyExists, "gang",
                     fmt::format("gang {} already has an open admission record (cycle {})",
                                 record.gang, (*existing)->cycle));
  }
  auto stmt = db_->connection().cached(
      "INSERT INTO admission_journal (gang, queue, cycle, written_at, placements) "
      "VALUES (?1, ?2, ?3, ?4, ?5)");
  if (!stmt) return stmt.error();
  stmt->bind(1, record.gang)
      .bind(2, record.queue)
      .bind(3, record.cycle)
      .bind(4, record.written_at)
      .bind(5, encodeBindings(record.bindings));
  return stmt->run();
}

Status AdmissionJournal::complete(const std::string& gang) {
  auto stmt = db_->connection().cached("DELETE FROM admission_journal WHERE gang = ?1");
  if (!stmt) return stmt.error();
  stmt->bind(1, gang);
  return stmt->run();
}

Result<std::vector<AdmissionRecord>> AdmissionJournal::open() const {
  return query(db_->connection(), "");
}

Result<std::optional<AdmissionRecord>> AdmissionJournal::find(const std::string& gang) const {
  auto rows = query(db_->connection(), gang);
  if (!rows) return rows.error();
  if (rows->empty()) return std::optional<AdmissionRecord>();
  return std::optional<AdmissionRecord>(std::move(rows->front()));
}

}  // namespace troupe::state
