#pragma once

#include <string>
#include <vector>

// Certificates made by the test itself with OpenSSL: an EC P-256 key and a self-signed
// X.509 certificate (CA:TRUE, so it can be its own trust anchor) whose subjectAltName lists
// the given DNS names and IP addresses.
namespace troupe::kube::testing {

struct TestCertificate {
  std::string cert_pem;
  std::string key_pem;
};

TestCertificate makeSelfSignedCertificate(const std::string& common_name,
                                          const std::vector<std::string>& dns_names,
                                          const std::vector<std::string>& ip_addresses);

}  // namespace troupe::kube::testing
