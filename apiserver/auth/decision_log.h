#pragma once

#include <cstdio>
#include <mutex>
#include <string>

#include "apiserver/auth/attributes.h"
#include "apiserver/auth/rbac_authorizer.h"
#include "apiserver/auth/token_file.h"
#include "common/result.h"

// Every authorization decision, one JSON line each, in the shape of a SubjectAccessReview
// (authorization.k8s.io/v1) with its status: who asked (user, groups), for what
// (resourceAttributes: verb, group, resource, subresource, namespace, name), whether it was
// allowed and by what. It answers "what does this client need?": run the client, then read
// the requests it made and the RBAC rule that served each (`troupe serve
// --authorization-log`). Lines are written whole and flushed, so a reader sees each
// decision once it is made.
namespace troupe::apiserver::auth {

class DecisionLog {
 public:
  static Result<std::unique_ptr<DecisionLog>> open(const std::string& path);
  ~DecisionLog();
  DecisionLog(const DecisionLog&) = delete;
  DecisionLog& operator=(const DecisionLog&) = delete;

  void record(const Identity& identity, const Attributes& request, const Decision& decision);

 private:
  explicit DecisionLog(std::FILE* file) : file_(file) {}
  std::mutex mu_;
  std::FILE* file_;
};

}  // namespace troupe::apiserver::auth
