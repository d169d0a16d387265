#include "test/kube/support/test_certificate.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <memory>

#include "common/check.h"

namespace troupe::kube::testing {
namespace {

std::string bioText(BIO* bio) {
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<std::size_t>(n));
}

void addExtension(X509* cert, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  TROUPE_CHECK(ext != nullptr, "bad extension {}", value);
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

}  // namespace

TestCertificate makeSelfSignedCertificate(const std::string& common_name,
                                          const std::vector<std::string>& dns_names,
                                          const std::vector<std::string>& ip_addresses) {
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(EVP_EC_gen("P-256"), EVP_PKEY_free);
  TROUPE_CHECK(key != nullptr, "EC key generation failed");
  std::unique_ptr<X509, decltype(&X509_free)> cert(X509_new(), X509_free);
  X509_set_version(cert.get(), 2);
  static long serial = 1;
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), serial++);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 24 * 3600);
  X509_set_pubkey(cert.get(), key.get());
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1,
                             0);
  X509_set_issuer_name(cert.get(), name);
  std::string san;
  for (const auto& dns : dns_names) san += (san.empty() ? "DNS:" : ",DNS:") + dns;
  for (const auto& ip : ip_addresses) san += (san.empty() ? "IP:" : ",IP:") + ip;
  addExtension(cert.get(), NID_basic_constraints, "critical,CA:TRUE");
  addExtension(cert.get(), NID_key_usage, "critical,digitalSignature,keyCertSign");
  if (!san.empty()) addExtension(cert.get(), NID_subject_alt_name, san);
  TROUPE_CHECK(X509_sign(cert.get(), key.get(), EVP_sha256()) > 0, "signing failed");

  TestCertificate out;
  std::unique_ptr<BIO, decltype(&BIO_free)> cert_bio(BIO_new(BIO_s_mem()), BIO_free);
  PEM_write_bio_X509(cert_bio.get(), cert.get());
  out.cert_pem = bioText(cert_bio.get());
  std::unique_ptr<BIO, decltype(&BIO_free)> key_bio(BIO_new(BIO_s_mem()), BIO_free);
  PEM_write_bio_PrivateKey(key_bio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr);
  out.key_pem = bioText(key_bio.get());
  return out;
}

}  // namespace troupe::kube::testing
