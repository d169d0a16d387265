#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

// Bearer tokens from DIR/tokens. One token a line, `#` starts a comment:
//
//   <token> <user> <scope>
//
// where <scope> is `*` (cluster admin: everything), `namespace:<ns>` (a tenant: its own
// namespace's TrainingJobs and PodGroups, read-only Queues) or `rbac` (what the RBAC
// ClusterRoles, Roles and bindings stored in the server grant the user and its groups, as
// kube-apiserver's RBAC authorizer decides). Tokens are at least 16 characters of
// [A-Za-z0-9._-].
namespace troupe::apiserver::auth {

struct Identity {
  std::string user;
  bool admin = false;
  std::string ns;  // the tenant's namespace; empty for an admin
  // Authorised by the stored RBAC objects, for `user` and `groups`.
  bool rbac = false;
  // As kube-apiserver's authenticators set them: system:authenticated for everyone, and
  // for a ServiceAccount's user name (system:serviceaccount:<ns>:<name>) also
  // system:serviceaccounts and system:serviceaccounts:<ns>.
  std::vector<std::string> groups;
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

// The groups kube-apiserver gives an authenticated user of this name.
std::vector<std::string> groupsOf(const std::string& user);

}  // namespace troupe::apiserver::auth
