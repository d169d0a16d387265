#include "apiserver/auth/token_file.h"

#include <openssl/rand.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "common/atomic_file.h"

namespace troupe::apiserver::auth {

std::string randomToken() {
  unsigned char bytes[24];
  RAND_bytes(bytes, sizeof bytes);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out.push_back(hex[b >> 4]);
    out.push_back(hex[b & 15]);
  }
  return out;
}

std::vector<std::string> groupsOf(const std::string& user) {
  std::vector<std::string> groups;
  const std::string prefix = "system:serviceaccount:";
  if (user.rfind(prefix, 0) == 0) {
    auto rest = user.substr(prefix.size());
    auto colon = rest.find(':');
    if (colon != std::string::npos && colon > 0 && colon + 1 < rest.size()) {
      groups.push_back("system:serviceaccounts");
      groups.push_back("system:serviceaccounts:" + rest.substr(0, colon));
    }
  }
  groups.push_back("system:authenticated");
  return groups;
}

Result<TokenFile> TokenFile::parse(const std::string& text, const std::string& origin) {
  TokenFile file;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    auto hash = line.find('#');
    if (hash != std::string::npos) line = line.substr(0, hash);
    std::istringstream fields(line);
    std::string token, user, scope, extra;
    if (!(fields >> token)) continue;
    std::string where = origin + ":" + std::to_string(number);
    if (!(fields >> user >> scope) || (fields >> extra)) {
      return makeError(ErrorCode::Invalid, where, "expected three fields: <token> <user> <scope>");
    }
    if (token.size() < 16 ||
        token.find_first_not_of(
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") !=
            std::string::npos) {
      return makeError(ErrorCode::Invalid, where,
                       "token must be at least 16 characters of [A-Za-z0-9._-]");
    }
    Identity identity;
    identity.user = user;
    if (scope == "*") {
      identity.admin = true;
      if (file.admin_token_.empty()) file.admin_token_ = token;
    } else if (scope.rfind("namespace:", 0) == 0 && scope.size() > 10) {
      identity.ns = scope.substr(10);
    } else if (scope == "rbac") {
      identity.rbac = true;
    } else {
      return makeError(ErrorCode::Invalid, where,
                       "scope must be `*`, `namespace:<name>` or `rbac`, got `" + scope + "`");
    }
    identity.groups = groupsOf(user);
    if (!file.tokens_.emplace(token, identity).second)
      return makeError(ErrorCode::Invalid, where, "duplicate token");
  }
  return file;
}

Result<TokenFile> TokenFile::load(const std::string& path) {
  std::ifstream in(path);
  if (!in) return makeError(ErrorCode::NotFound, path, "cannot read the token file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parse(buffer.str(), path);
}

Result<TokenFile> TokenFile::loadOrCreate(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    const std::string text =
        "# troupe serve bearer tokens: <token> <user> <scope>; scope is * (admin),\n"
        "# namespace:<ns> (TrainingJobs and PodGroups in <ns>, read-only Queues) or rbac\n"
        "# (what the stored ClusterRoles, Roles and their bindings grant <user>).\n" +
        randomToken() + " admin *\n";
    if (auto written = writeFileAtomically(path, text, 0600); !written) return written.error();
  }
  return load(path);
}

std::optional<Identity> TokenFile::authenticate(const std::string& authorization) const {
  const std::string prefix = "Bearer ";
  if (authorization.size() <= prefix.size() || authorization.compare(0, prefix.size(), prefix) != 0)
    return std::nullopt;
  std::string token = authorization.substr(prefix.size());
  while (!token.empty() && token.back() == ' ') token.pop_back();
  auto it = tokens_.find(token);
  if (it == tokens_.end()) return std::nullopt;
  return it->second;
}

}  // namespace troupe::apiserver::auth
