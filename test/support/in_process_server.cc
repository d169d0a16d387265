#include "test/support/in_process_server.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/check.h"

namespace troupe::testing {

std::string fixtureDir() {
  if (const char* env = std::getenv("TROUPE_SHARED_DIR")) return std::string(env) + "/k8s-fixtures";
  for (std::string dir : {std::string(TROUPE_SHARED_DIR), std::string("/work/shared")})
    if (std::filesystem::is_directory(dir + "/k8s-fixtures")) return dir + "/k8s-fixtures";
  return std::string(TROUPE_SHARED_DIR) + "/k8s-fixtures";
}

std::string fixture(const std::string& name) {
  std::ifstream in(fixtureDir() + "/" + name);
  TROUPE_CHECK(in.good(), "missing fixture {}", name);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

InProcessServer::InProcessServer(std::string kube_minor) {
  std::string crds = dir_.path() + "/crds";
  std::filesystem::create_directories(crds);
  std::ofstream(crds + "/trainingjobs.yaml") << fixture("crd-trainingjobs.yaml");
  std::string data = dir_.path() + "/data";
  std::filesystem::create_directories(data);
  apiserver::auth::TokenFile::loadOrCreate(data + "/tokens").value();
  std::ofstream(data + "/tokens", std::ios::app)
      << kTenantToken << " alice namespace:fixtures\n"
      << kServiceAccountToken << " " << kServiceAccountUser << " rbac\n";

  apiserver::StandaloneOptions options;
  options.data_dir = data;
  options.port = 0;
  options.crd_dirs = {crds};
  options.io_threads = 1;
  options.worker_threads = 2;
  options.body_limit = 64 * 1024;
  options.authorization_log = authorizationLog();
  options.admission = false;  // the recorded stand-in CRD is not Troupe's own TrainingJob
  options.version.minor = kube_minor;
  options.version.git_version = "v1." + kube_minor + ".0-troupe";
  server_ =
      std::make_unique<apiserver::StandaloneServer>(options, std::make_unique<MemoryObjectStore>());
  auto started = server_->start();
  TROUPE_CHECK(started.ok(), "server did not start: {}", started.error().describe());
  admin_token_ = server_->adminToken();
}

InProcessServer::~InProcessServer() { server_->stop(); }

HttpReply InProcessServer::get(const std::string& path, const std::string& accept) const {
  HttpCall call;
  call.path = path;
  call.token = admin_token_;
  if (!accept.empty()) call.headers.emplace_back("Accept", accept);
  return httpsRequest(port(), call);
}

HttpReply InProcessServer::send(const std::string& method, const std::string& path,
                                const std::string& body, const std::string& content_type) const {
  HttpCall call;
  call.method = method;
  call.path = path;
  call.token = admin_token_;
  call.body = body;
  call.headers.emplace_back("Content-Type", content_type);
  return httpsRequest(port(), call);
}

}  // namespace troupe::testing
