#include "common/log.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <memory>

#include "common/rfc3339.h"

namespace troupe::log {
namespace {

std::atomic<Level> g_level{Level::Info};

// spdlog gives a thread-safe sink; Troupe formats the JSON line itself.
spdlog::logger& sink() {
  static const std::shared_ptr<spdlog::logger> logger = [] {
    auto l = std::make_shared<spdlog::logger>("troupe",
                                              std::make_shared<spdlog::sinks::stderr_sink_mt>());
    l->set_pattern("%v");
    l->set_level(spdlog::level::trace);
    l->flush_on(spdlog::level::trace);
    return l;
  }();
  return *logger;
}

const char* levelName(Level level) {
  switch (level) {
    case Level::Debug: return "debug";
    case Level::Info: return "info";
    case Level::Warn: return "warn";
    case Level::Error: return "error";
    case Level::Off: return "off";
  }
  return "info";
}

std::string timestamp() { return formatRfc3339(std::chrono::system_clock::now(), 3); }

}  // namespace

Result<Level> parseLevel(std::string_view text) {
  if (text == "debug") return Level::Debug;
  if (text == "info") return Level::Info;
  if (text == "warn" || text == "warning") return Level::Warn;
  if (text == "error") return Level::Error;
  if (text == "off") return Level::Off;
  return makeError(ErrorCode::Invalid, "--log-level",
                   fmt::format("Unsupported value: \"{}\": supported values: \"debug\", "
                               "\"info\", \"warn\", \"error\", \"off\"",
                               text));
}

void setLevel(Level level) { g_level.store(level, std::memory_order_relaxed); }
Level level() { return g_level.load(std::memory_order_relaxed); }
bool enabled(Level l) { return l != Level::Off && l >= level(); }

void write(Level l, std::string_view msg, const nlohmann::json& fields) {
  nlohmann::json line = nlohmann::json::object();
  line["ts"] = timestamp();
  line["level"] = levelName(l);
  line["msg"] = msg;
  if (fields.is_object()) {
    for (const auto& [key, value] : fields.items()) {
      if (key != "ts" && key != "level" && key != "msg") line[key] = value;
    }
  }
  sink().info(line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace troupe::log
