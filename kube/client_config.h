#pragma once

#include <chrono>
#include <string>

// Everything RestKubeClient needs to reach one API server, whichever source it came from
// (a kubeconfig file, the in-cluster service account, or a test).
namespace troupe::kube {

struct ClientConfig {
  // "https://10.0.0.1:6443" or "http://127.0.0.1:8080"; no path beyond "/".
  std::string server;

  // Authentication. A token file wins over `token` and is re-read when the file changes
  // (projected service-account tokens rotate).
  std::string token;
  std::string token_file;
  std::string client_certificate_pem;  // client TLS certificate and key, PEM text
  std::string client_key_pem;

  // Server verification. With neither CA set, the system trust store is used.
  std::string certificate_authority_pem;
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;  // name to verify (and send as SNI) instead of the URL host

  // The namespace the context (or the service account) points at; "default" if none.
  std::string ns = "default";

  // Client-side rate limit: a token bucket refilled at `qps`, holding at most `burst`.
  double qps = 50;
  int burst = 100;
  // Deadline of one attempt of one request: connect, TLS, write, read of the whole answer.
  std::chrono::milliseconds request_timeout{30'000};
  // Retries after the first attempt on 429, retryable 5xx and dropped connections.
  int max_retries = 5;
  std::chrono::milliseconds retry_base_delay{200};
  std::chrono::milliseconds retry_max_delay{10'000};
  // Idle keep-alive connections kept per client.
  int max_idle_connections = 4;
  // Empty: "troupe/<version> (linux/amd64)".
  std::string user_agent;

  // Where the configuration came from, for messages ("kubeconfig /home/a/.kube/config
  // context kind-troupe", "in-cluster").
  std::string source;
};

}  // namespace troupe::kube
