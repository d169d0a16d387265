#include "apiserver/kubeconfig.h"

#include <openssl/evp.h>
#include <sys/stat.h>

#include <fstream>
#include <vector>

namespace troupe::apiserver {

std::string base64(const std::string& data) {
  std::vector<unsigned char> out(4 * ((data.size() + 2) / 3) + 1);
  int n = EVP_EncodeBlock(out.data(), reinterpret_cast<const unsigned char*>(data.data()),
                          static_cast<int>(data.size()));
  return std::string(reinterpret_cast<char*>(out.data()), static_cast<std::size_t>(n));
}

std::string kubeconfigText(const std::string& server_url, const std::string& ca_pem,
                           const std::string& token) {
  return "apiVersion: v1\n"
         "kind: Config\n"
         "clusters:\n"
         "- name: troupe\n"
         "  cluster:\n"
         "    server: " +
         server_url +
         "\n"
         "    certificate-authority-data: " +
         base64(ca_pem) +
         "\n"
         "users:\n"
         "- name: troupe-admin\n"
         "  user:\n"
         "    token: " +
         token +
         "\n"
         "contexts:\n"
         "- name: troupe\n"
         "  context:\n"
         "    cluster: troupe\n"
         "    user: troupe-admin\n"
         "    namespace: default\n"
         "current-context: troupe\n";
}

Status writeKubeconfig(const std::string& path, const std::string& server_url,
                       const std::string& ca_pem, const std::string& token) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    if (!out) return makeError(ErrorCode::Internal, path, "cannot write the kubeconfig");
    out << kubeconfigText(server_url, ca_pem, token);
  }
  chmod(tmp.c_str(), 0600);
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    return makeError(ErrorCode::Internal, path, "cannot write the kubeconfig");
  return {};
}

}  // namespace troupe::apiserver
