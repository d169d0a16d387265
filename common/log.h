#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

#include "common/result.h"

// Structured logs: one JSON object a line on stderr, {"ts","level","msg",...fields}.
namespace troupe::log {

enum class Level { Debug = 0, Info = 1, Warn = 2, Error = 3, Off = 4 };

// Parses "debug", "info", "warn", "error" or "off"; anything else is an Invalid error.
Result<Level> parseLevel(std::string_view text);
void setLevel(Level level);
Level level();
bool enabled(Level level);

// `fields` is a JSON object merged into the line; keys "ts", "level", "msg" are reserved.
void write(Level level, std::string_view msg,
           const nlohmann::json& fields = nlohmann::json::object());

inline void debug(std::string_view msg, const nlohmann::json& fields = nlohmann::json::object()) {
  if (enabled(Level::Debug)) write(Level::Debug, msg, fields);
}
inline void info(std::string_view msg, const nlohmann::json& fields = nlohmann::json::object()) {
  if (enabled(Level::Info)) write(Level::Info, msg, fields);
}
inline void warn(std::string_view msg, const nlohmann::json& fields = nlohmann::json::object()) {
  if (enabled(Level::Warn)) write(Level::Warn, msg, fields);
}
inline void error(std::string_view msg, const nlohmann::json& fields = nlohmann::json::object()) {
  if (enabled(Level::Error)) write(Level::Error, msg, fields);
}

}  // namespace troupe::log
