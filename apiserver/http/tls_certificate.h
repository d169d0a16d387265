#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "common/result.h"

typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;

// A server certificate read from PEM files that can be replaced while the server runs:
// every TLS handshake takes the one current at its start (OpenSSL's certificate callback),
// so a certificate renewed on disk (cert-manager, a rotated Secret) is served without a
// restart and without a moment when none is.
namespace troupe::apiserver::http {

class TlsCertificate {
 public:
  TlsCertificate(std::string cert_file, std::string key_file);
  ~TlsCertificate();
  TlsCertificate(const TlsCertificate&) = delete;
  TlsCertificate& operator=(const TlsCertificate&) = delete;

  // Reads the files (the certificate chain, then its key); the certificate in use stays
  // when they cannot be read or do not match.
  Status load();
  // Makes `ctx` serve the current certificate from now on.
  void install(SSL_CTX* ctx);

 private:
  struct Pair;
  static int select(SSL* ssl, void* self);
  std::shared_ptr<const Pair> current() const;

  const std::string cert_file_;
  const std::string key_file_;
  mutable std::mutex mu_;
  std::shared_ptr<const Pair> pair_;
};

}  // namespace troupe::apiserver::http
