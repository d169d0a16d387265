#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "apiserver/handlers/rest_request.h"
#include "apiserver/http/http_message.h"
#include "apiserver/objects/api_status.h"

// GET ...?watch=true: a chunked stream of {"type","object"} lines, as kube-apiserver
// writes them: synthetic ADDED events for resourceVersion "" or "0", BOOKMARKs when
// allowed, an ERROR event with a 410 Status when the revision is compacted, and an end
// after timeoutSeconds.
namespace troupe::apiserver {

class WatchStream;

// One thread that drives every watch's bookmarks and timeouts once a second, so that
// thousands of watches need no thread each.
class WatchTicker {
 public:
  WatchTicker();
  ~WatchTicker();
  void add(const std::shared_ptr<WatchStream>& stream);
  void stop();

 private:
  void run();
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::vector<std::weak_ptr<WatchStream>> streams_;
  std::thread thread_;
};

http::Response handleWatch(ApiContext& context, const RestRequest& request);

}  // namespace troupe::apiserver
