#include "apiserver/tls/self_signed_certificate.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>

#include "common/atomic_file.h"

namespace troupe::apiserver::tls {

namespace {

bool exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

bool addExtension(X509* cert, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (!ext) return false;
  bool ok = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok;
}

Error opensslError(const std::string& what) {
  return makeError(ErrorCode::Internal, "tls", "OpenSSL failed to " + what);
}

}  // namespace

Result<CertificateFiles> ensureSelfSignedCertificate(const std::string& dir) {
  CertificateFiles files{dir + "/serving.crt", dir + "/serving.key", ""};
  if (exists(files.cert_file) && exists(files.key_file)) {
    files.cert_pem = readFile(files.cert_file);
    return files;
  }
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(EVP_EC_gen("P-256"), EVP_PKEY_free);
  if (!key) return opensslError("generate a P-256 key");
  std::unique_ptr<X509, decltype(&X509_free)> cert(X509_new(), X509_free);
  X509_set_version(cert.get(), 2);
  unsigned char serial[16];
  FILE* urandom = std::fopen("/dev/urandom", "rb");
  if (!urandom || std::fread(serial, 1, sizeof serial, urandom) != sizeof serial) {
    if (urandom) std::fclose(urandom);
    return opensslError("read a random serial number");
  }
  std::fclose(urandom);
  serial[0] &= 0x7f;
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 60L * 60 * 24 * 365 * 10);
  X509_set_pubkey(cert.get(), key.get());
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("troupe-serve"), -1, -1, 0);
  X509_set_issuer_name(cert.get(), name);
  if (!addExtension(cert.get(), NID_basic_constraints, "critical,CA:TRUE") ||
      !addExtension(cert.get(), NID_key_usage, "critical,digitalSignature,keyCertSign") ||
      !addExtension(cert.get(), NID_ext_key_usage, "serverAuth") ||
      !addExtension(cert.get(), NID_subject_alt_name, "IP:127.0.0.1,DNS:localhost") ||
      !addExtension(cert.get(), NID_subject_key_identifier, "hash")) {
    return opensslError("add the certificate extensions");
  }
  if (X509_sign(cert.get(), key.get(), EVP_sha256()) == 0)
    return opensslError("sign the certificate");

  // Written to memory, then each file atomically: a full disk leaves no half-written key
  // or certificate behind (the next start makes both again).
  auto pem = [](auto write) -> std::optional<std::string> {
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), BIO_free);
    if (!bio || write(bio.get()) != 1) return std::nullopt;
    char* data = nullptr;
    long size = BIO_get_mem_data(bio.get(), &data);
    return std::string(data, static_cast<std::size_t>(size));
  };
  auto key_pem = pem([&](BIO* bio) {
    return PEM_write_bio_PrivateKey(bio, key.get(), nullptr, nullptr, 0, nullptr, nullptr);
  });
  auto cert_pem = pem([&](BIO* bio) { return PEM_write_bio_X509(bio, cert.get()); });
  if (!key_pem || !cert_pem) return opensslError("write PEM files");
  if (auto written = writeFileAtomically(files.key_file, *key_pem, 0600); !written)
    return written.error();
  if (auto written = writeFileAtomically(files.cert_file, *cert_pem, 0644); !written)
    return written.error();
  files.cert_pem = readFile(files.cert_file);
  return files;
}

}  // namespace troupe::apiserver::tls
