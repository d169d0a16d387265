#pragma once

#include <map>
#include <optional>
#include <string>

#include "common/result.h"

// Bearer tokens from DIR/tokens. One token a line, `#` starts a comment:
//
//   <token> <user> <scope>
//
// where <scope> is `*` (cluster admin: everything) or `namespace:<ns>` (a tenant: its own
// namespace's TrainingJobs and PodGroups, read-only Queues). Tokens are at least 16
// characters of [A-Za-z0-9._-].
namespace troupe::apiserver::auth {

struct Identity {
  std::string user;
  bool admin = false;
  std::string ns;  // the tenant's namespace; empty for an admin
};

class TokenFile {
 public:
  static Result<TokenFile> parse(const std::string& text, const std::string& origin);
  static Result<TokenFile> load(const std::string& path);
  // Creates `path` with one fresh admin token unless it exists; returns the loaded file.
  static Result<TokenFile> loadOrCreate(const std::string& path);

  // From an `Authorization` header value; nullopt when absent or unknown.
  std::optional<Identity> authenticate(const std::string& authorization) const;
  // The first admin token (for the kubeconfig).
  std::string adminToken() const { return admin_token_; }

 private:
  std::map<std::string, Identity> tokens_;
  std::string admin_token_;
};

std::string randomToken();

}  // namespace troupe::apiserver::auth
