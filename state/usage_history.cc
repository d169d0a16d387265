#include "state/usage_history.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace troupe::state {
namespace {

constexpr const char* kField = "metadata.annotations[troupe.dev/decayed-usage]";

Result<std::map<std::string, std::int64_t>> decodeUsageMap(const nlohmann::json& object) {
  if (!object.is_object()) {
    return makeError(ErrorCode::Invalid, kField, "usage must be an object of integers");
  }
  std::map<std::string, std::int64_t> out;
  for (const auto& [name, value] : object.items()) {
    if (!value.is_number_integer()) {
      return makeError(ErrorCode::Invalid, kField,
                       fmt::format("usage of {} must be an integer", name));
    }
    out[name] = value.get<std::int64_t>();
  }
  return out;
}

}  // namespace

Status UsageHistory::save(const std::string& queue, const QueueUsage& usage) {
  auto stmt = db_->connection().cached(
      "INSERT INTO queue_usage (queue, usage, updated_at) VALUES (?1, ?2, ?3) "
      "ON CONFLICT(queue) DO UPDATE SET usage = excluded.usage, updated_at = excluded.updated_at");
  if (!stmt) return stmt.error();
  stmt->bind(1, queue).bind(2, nlohmann::json(usage.usage).dump()).bind(3, usage.updated_at);
  return stmt->run();
}

Status UsageHistory::forget(const std::string& queue) {
  auto stmt = db_->connection().cached("DELETE FROM queue_usage WHERE queue = ?1");
  if (!stmt) return stmt.error();
  stmt->bind(1, queue);
  return stmt->run();
}

Result<std::map<std::string, QueueUsage>> UsageHistory::load() const {
  auto stmt =
      db_->connection().cached("SELECT queue, usage, updated_at FROM queue_usage ORDER BY queue");
  if (!stmt) return stmt.error();
  std::map<std::string, QueueUsage> out;
  while (true) {
    auto row = stmt->step();
    if (!row) return row.error();
    if (!*row) break;
    std::string queue(stmt->columnText(0));
    auto parsed = nlohmann::json::parse(stmt->columnText(1), nullptr, false);
    auto usage = decodeUsageMap(parsed);
    if (!usage) {
      return makeError(ErrorCode::Internal, "queue_usage.usage",
                       fmt::format("the usage row of queue {} is damaged", queue));
    }
    out[queue] = QueueUsage{std::move(*usage), stmt->columnInt(2)};
  }
  return out;
}

std::string encodeUsageAnnotation(const QueueUsage& usage) {
  return nlohmann::json{{"at", usage.updated_at}, {"usage", usage.usage}}.dump();
}

Result<QueueUsage> decodeUsageAnnotation(std::string_view text) {
  auto object = nlohmann::json::parse(text, nullptr, false);
  if (!object.is_object() || !object.contains("at") || !object["at"].is_number_integer() ||
      !object.contains("usage")) {
    return makeError(ErrorCode::Invalid, kField,
                     "must be a JSON object {\"at\": <seconds>, \"usage\": {<resource>: <int>}}");
  }
  auto usage = decodeUsageMap(object["usage"]);
  if (!usage) return usage.error();
  return QueueUsage{std::move(*usage), object["at"].get<std::int64_t>()};
}

const QueueUsage& newerOf(const QueueUsage& local, const QueueUsage& mirrored) {
  return mirrored.updated_at > local.updated_at ? mirrored : local;
}

}  // namespace troupe::state
