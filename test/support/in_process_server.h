#pragma once

#include <memory>
#include <string>

#include "apiserver/auth/token_file.h"
#include "apiserver/standalone_server.h"
#include "test/support/https_client.h"
#include "test/support/memory_object_store.h"
#include "test/support/temp_dir.h"

// A StandaloneServer in the test process on a free 127.0.0.1 port, over a
// MemoryObjectStore, with the recorded TrainingJob CRD loaded, a tenant token for
// namespace "fixtures" (user "alice"), a token of the ServiceAccount "op" in namespace "sys"
// authorised by the stored RBAC objects, and every authorization decision logged.
namespace troupe::testing {

class InProcessServer {
 public:
  explicit InProcessServer(std::string kube_minor = "28");
  ~InProcessServer();

  int port() const { return static_cast<int>(server_->port()); }
  const std::string& adminToken() const { return admin_token_; }
  static constexpr const char* kTenantToken = "alice-token-0123456789abcdef";
  static constexpr const char* kServiceAccountToken = "op-token-0123456789abcdef";
  static constexpr const char* kServiceAccountUser = "system:serviceaccount:sys:op";
  // The decisions, one SubjectAccessReview (JSON) a line.
  std::string authorizationLog() const { return dir_.path() + "/authorization.log"; }
  apiserver::StandaloneServer& server() { return *server_; }
  const std::string& dataDir() const { return dir_.path(); }

  // Shorthands for requests as admin.
  HttpReply get(const std::string& path, const std::string& accept = "") const;
  HttpReply send(const std::string& method, const std::string& path, const std::string& body,
                 const std::string& content_type = "application/json") const;

 private:
  TempDir dir_;
  std::unique_ptr<apiserver::StandaloneServer> server_;
  std::string admin_token_;
};

// The text of a file in the recorded fixtures (shared/k8s-fixtures).
std::string fixture(const std::string& name);
// Where the fixtures are: $TROUPE_SHARED_DIR, else shared/ beside the checkout.
std::string fixtureDir();

}  // namespace troupe::testing
