#pragma once

#include <string>

#include "common/result.h"

// The serving certificate of `troupe serve`: a self-signed P-256 certificate for
// 127.0.0.1 and localhost, made once with OpenSSL and kept in the data directory. It is
// its own CA, so the kubeconfig pins it as certificate-authority-data.
namespace troupe::apiserver::tls {

struct CertificateFiles {
  std::string cert_file;  // DIR/serving.crt
  std::string key_file;   // DIR/serving.key (mode 0600)
  std::string cert_pem;   // the certificate's PEM text
};

Result<CertificateFiles> ensureSelfSignedCertificate(const std::string& dir);

}  // namespace troupe::apiserver::tls
