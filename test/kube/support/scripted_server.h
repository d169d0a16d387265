#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

// An HTTP/1.1 server on 127.0.0.1 (an ephemeral port), plain or TLS, that answers each
// request with the next programmed Reply (or a handler's), byte for byte, and records every
// request. Real sockets, one thread per connection; keep-alive is honoured, so tests can
// see connection reuse. Replies can stream (chunked, a watch), hang, or drop the connection.
namespace troupe::kube::testing {

struct RecordedRequest {
  std::string method;
  std::string target;                          // path and query as sent
  std::string path;                            // without the query
  std::map<std::string, std::string> query;    // decoded
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
  int connection = 0;          // 1, 2, ...: which accepted connection carried it
  std::string client_cert_cn;  // TLS: the common name of the client certificate, if any

  std::string header(const std::string& lower_name) const;
  std::string param(const std::string& name) const;
  bool hasParam(const std::string& name) const { return query.count(name) > 0; }
};

struct Reply {
  int status = 200;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;

  // Streaming (a watch): chunked transfer encoding, one chunk per element, `chunk_delay`
  // apart; then the body ends, or with `hold_open` the server keeps the stream open until
  // releaseStreams() or the server stops.
  bool chunked = false;
  std::vector<std::string> chunks;
  std::chrono::milliseconds chunk_delay{0};
  bool hold_open = false;

  enum class Drop { None, BeforeResponse, MidBody };
  Drop drop = Drop::None;    // close the connection instead of answering (fully)
  bool close_after = false;  // answer with Connection: close and close

  // The fixture file `name` (k8s-fixtures) as the body, byte for byte.
  static Reply fixture(int status, const std::string& name);
  // A watch stream: the lines of an ndjson fixture (or given lines), one chunk per event.
  static Reply watchLines(const std::vector<std::string>& lines);
  static Reply json(int status, const std::string& body);
};

// The bytes of a fixture file; aborts the test when missing (a broken checkout).
std::string readFixture(const std::string& name);
// The lines of an ndjson fixture, each with its trailing '\n'.
std::vector<std::string> fixtureLines(const std::string& name);

struct ScriptedServerOptions {
  bool tls = false;
  std::string cert_pem;  // TLS: the serving certificate and key, PEM
  std::string key_pem;
  bool request_client_certificate = false;  // ask for (and record) a client certificate
};

class ScriptedServer {
 public:
  using Options = ScriptedServerOptions;

  ScriptedServer() : ScriptedServer(Options{}) {}
  explicit ScriptedServer(Options options);
  ~ScriptedServer();
  ScriptedServer(const ScriptedServer&) = delete;
  ScriptedServer& operator=(const ScriptedServer&) = delete;

  std::string url() const;  // "http://127.0.0.1:<port>" or "https://..."
  int port() const { return port_; }

  // Replies served in order, whatever the path; when none is left the handler answers,
  // and without a handler the answer is 500 "no reply programmed".
  void enqueue(Reply reply);
  void setHandler(std::function<Reply(const RecordedRequest&)> handler);
  // Ends the streams held open by `hold_open` replies (as a server at timeoutSeconds).
  void releaseStreams();

  std::vector<RecordedRequest> requests() const;
  // Waits until at least `n` requests arrived; false at the timeout.
  bool waitForRequests(std::size_t n, std::chrono::milliseconds timeout) const;
  int connectionsAccepted() const;

  struct Connection;  // defined in the .cc

 private:
  void acceptLoop();
  void serve(Connection& connection);
  Reply nextReply(const RecordedRequest& request);

  Options options_;
  int port_ = 0;
  struct Impl;
  std::unique_ptr<Impl> impl_;

  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  std::deque<Reply> replies_;
  std::function<Reply(const RecordedRequest&)> handler_;
  std::vector<RecordedRequest> requests_;
  int connections_ = 0;
  bool stopping_ = false;
  std::uint64_t release_generation_ = 0;
  std::thread acceptor_thread_;
};

}  // namespace troupe::kube::testing
