#include "bench/api/request_log.h"

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

namespace troupe::bench {

std::map<std::string, std::int64_t> writesBy(const std::string& path, const std::string& user,
                                             std::int64_t from) {
  std::map<std::string, std::int64_t> out;
  std::ifstream in(path);
  in.seekg(from);
  for (std::string line; std::getline(in, line);) {
    // Cheap test first: most lines are other users' or reads.
    if (line.find(user) == std::string::npos) continue;
    auto review = nlohmann::json::parse(line, nullptr, false);
    if (!review.is_object()) continue;  // a line cut short by a writer still at it
    const auto& spec = review.value("spec", nlohmann::json::object());
    if (spec.value("user", "") != user) continue;
    const auto& a = spec.value("resourceAttributes", nlohmann::json::object());
    const std::string verb = a.value("verb", ""), sub = a.value("subresource", "");
    if (verb != "create" && verb != "update" && verb != "patch" && verb != "delete" &&
        verb != "deletecollection")
      continue;
    if (sub == "finalizers") continue;
    out[verb + " " + a.value("resource", "") + (sub.empty() ? "" : "/" + sub)] += 1;
  }
  return out;
}

std::int64_t requestLogSize(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  return ec ? 0 : static_cast<std::int64_t>(size);
}

}  // namespace troupe::bench
