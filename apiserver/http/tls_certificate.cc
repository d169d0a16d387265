#include "apiserver/http/tls_certificate.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

namespace troupe::apiserver::http {

struct TlsCertificate::Pair {
  X509* leaf = nullptr;
  STACK_OF(X509) * chain = nullptr;  // the intermediates after the leaf
  EVP_PKEY* key = nullptr;
  ~Pair() {
    X509_free(leaf);
    sk_X509_pop_free(chain, X509_free);
    EVP_PKEY_free(key);
  }
};

namespace {

std::string lastOpenSslError() {
  char text[256] = {0};
  ERR_error_string_n(ERR_get_error(), text, sizeof(text));
  ERR_clear_error();
  return text;
}

}  // namespace

TlsCertificate::TlsCertificate(std::string cert_file, std::string key_file)
    : cert_file_(std::move(cert_file)), key_file_(std::move(key_file)) {}

TlsCertificate::~TlsCertificate() = default;

Status TlsCertificate::load() {
  auto pair = std::make_shared<Pair>();
  BIO* certs = BIO_new_file(cert_file_.c_str(), "r");
  if (certs == nullptr)
    return makeError(ErrorCode::Internal, "tls",
                     "cannot read " + cert_file_ + ": " + lastOpenSslError());
  pair->leaf = PEM_read_bio_X509(certs, nullptr, nullptr, nullptr);
  pair->chain = sk_X509_new_null();
  while (X509* more = PEM_read_bio_X509(certs, nullptr, nullptr, nullptr))
    sk_X509_push(pair->chain, more);
  ERR_clear_error();  // the end of the file reads as an error
  BIO_free(certs);
  if (pair->leaf == nullptr)
    return makeError(ErrorCode::Internal, "tls", "no certificate in " + cert_file_);
  BIO* key = BIO_new_file(key_file_.c_str(), "r");
  if (key == nullptr)
    return makeError(ErrorCode::Internal, "tls",
                     "cannot read " + key_file_ + ": " + lastOpenSslError());
  pair->key = PEM_read_bio_PrivateKey(key, nullptr, nullptr, nullptr);
  BIO_free(key);
  if (pair->key == nullptr)
    return makeError(ErrorCode::Internal, "tls", "no private key in " + key_file_);
  if (X509_check_private_key(pair->leaf, pair->key) != 1)
    return makeError(ErrorCode::Internal, "tls",
                     "the key in " + key_file_ + " is not the certificate's in " + cert_file_);
  std::lock_guard lock(mu_);
  pair_ = std::move(pair);
  return {};
}

std::shared_ptr<const TlsCertificate::Pair> TlsCertificate::current() const {
  std::lock_guard lock(mu_);
  return pair_;
}

int TlsCertificate::select(SSL* ssl, void* self) {
  auto pair = static_cast<TlsCertificate*>(self)->current();
  if (!pair) return 0;
  if (SSL_use_certificate(ssl, pair->leaf) != 1) return 0;
  if (SSL_use_PrivateKey(ssl, pair->key) != 1) return 0;
  if (SSL_set1_chain(ssl, pair->chain) != 1) return 0;
  return 1;
}

void TlsCertificate::install(SSL_CTX* ctx) {
  SSL_CTX_set_cert_cb(ctx, &TlsCertificate::select, this);
}

}  // namespace troupe::apiserver::http
