#pragma once

#include <memory>
#include <string>

// A chunked response produced over time (a watch). The session owns the socket; the
// stream owns what to send. They meet through StreamSink.
namespace troupe::apiserver::http {

// Where a stream writes. Thread-safe: a stream may push from any thread.
class StreamSink {
 public:
  virtual ~StreamSink() = default;
  // Queues one chunk. Returns false once the client is gone or the sink fell too far
  // behind (the session then ends the response); the stream should stop pushing.
  virtual bool push(std::string chunk) = 0;
  // Ends the response (last chunk). Further pushes are ignored.
  virtual void finish() = 0;
};

class ResponseStream {
 public:
  virtual ~ResponseStream() = default;
  // Called once the response header went out. The stream keeps `sink` and pushes.
  virtual void start(std::shared_ptr<StreamSink> sink) = 0;
  // Called when the client went away or the server stops; no push is needed after it.
  virtual void stop() = 0;
};

}  // namespace troupe::apiserver::http
