#include "apiserver/kubeconfig.h"

#include <fstream>
#include <iterator>

#include "common/atomic_file.h"
#include "common/base64.h"

namespace troupe::apiserver {

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
         encodeBase64(ca_pem) +
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
  const std::string text = kubeconfigText(server_url, ca_pem, token);
  // Unchanged (the usual restart): nothing to write, so a full disk does not stop a start.
  std::ifstream in(path, std::ios::binary);
  if (in) {
    std::string current((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (current == text) return {};
  }
  return writeFileAtomically(path, text, 0600);
}

}  // namespace troupe::apiserver
