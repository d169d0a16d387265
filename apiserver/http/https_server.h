#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "apiserver/http/http_message.h"
#include "common/result.h"

// An HTTPS/1.1 server in the shape of Beast's example servers: a listener accepts, a
// session per connection reads with a size limit and a deadline, and the handler turns
// a Request into a Response. Handlers run on a worker pool, never on the I/O threads,
// because they may wait on storage. Beast stays inside the .cc files.
namespace troupe::apiserver::http {

using Handler = std::function<Response(const Request&)>;

struct ServerOptions {
  std::string address = "127.0.0.1";
  std::uint16_t port = 0;  // 0: pick a free port
  std::string cert_file;   // PEM
  std::string key_file;    // PEM
  std::size_t io_threads = 2;
  std::size_t worker_threads = 4;
  // Largest request body accepted; larger ones get 413 naming this limit.
  std::size_t body_limit = 3 * 1024 * 1024;
  std::size_t header_limit = 64 * 1024;
  // Deadline for reading one request (header and body), and for an idle keep-alive.
  int read_timeout_seconds = 60;
  // A watch whose unsent output grows past this is ended: one slow client never holds
  // memory or other clients hostage.
  std::size_t stream_backlog_limit = 16 * 1024 * 1024;
};

class HttpsServer {
 public:
  HttpsServer(ServerOptions options, Handler handler);
  ~HttpsServer();
  HttpsServer(const HttpsServer&) = delete;
  HttpsServer& operator=(const HttpsServer&) = delete;

  // Binds and starts the threads; returns the bound port.
  Result<std::uint16_t> start();
  // Stops accepting, ends streams and joins every thread. Idempotent.
  void stop();
  // Reads cert_file and key_file again: handshakes from now on present what they hold. On
  // an error the certificate served so far stays.
  Status reloadCertificate();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace troupe::apiserver::http
