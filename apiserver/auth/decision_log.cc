#include "apiserver/auth/decision_log.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>
#include <memory>

namespace troupe::apiserver::auth {

Result<std::unique_ptr<DecisionLog>> DecisionLog::open(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "a");
  if (!file)
    return makeError(ErrorCode::Internal, "--authorization-log",
                     "cannot open " + path + ": " + std::strerror(errno));
  return std::unique_ptr<DecisionLog>(new DecisionLog(file));
}

DecisionLog::~DecisionLog() { std::fclose(file_); }

void DecisionLog::record(const Identity& identity, const Attributes& a, const Decision& decision) {
  nlohmann::json attributes{{"verb", a.verb}, {"group", a.group}, {"resource", a.resource}};
  if (!a.subresource.empty()) attributes["subresource"] = a.subresource;
  if (!a.ns.empty()) attributes["namespace"] = a.ns;
  if (!a.name.empty()) attributes["name"] = a.name;
  nlohmann::json review{
      {"apiVersion", "authorization.k8s.io/v1"},
      {"kind", "SubjectAccessReview"},
      {"spec",
       {{"user", identity.user}, {"groups", identity.groups}, {"resourceAttributes", attributes}}},
      {"status", {{"allowed", decision.allowed}}}};
  if (!decision.reason.empty()) review["status"]["reason"] = decision.reason;
  std::string line = review.dump() + "\n";
  std::lock_guard lock(mu_);
  std::fwrite(line.data(), 1, line.size(), file_);
  std::fflush(file_);
}

}  // namespace troupe::apiserver::auth
