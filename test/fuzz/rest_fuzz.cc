// libFuzzer harness: one REST request to the API handler, as any authenticated client may
// send it, against a server over an in-memory store with Troupe's CRDs. Whatever the
// request, the answer is never a 500: those are the server's own faults.
//
// Input: "<METHOD> <target>\n<Content-Type>\n<body>".
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "apiserver/auth/token_file.h"
#include "apiserver/standalone_server.h"
#include "common/check.h"
#include "common/log.h"
#include "test/support/memory_object_store.h"

namespace {

using namespace troupe;

apiserver::StandaloneServer& server() {
  static apiserver::StandaloneServer* instance = [] {
    log::setLevel(log::Level::Off);
    auto dir =
        std::filesystem::temp_directory_path() / ("troupe-rest-fuzz-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    apiserver::StandaloneOptions options;
    options.data_dir = dir.string();
    options.port = 0;
    options.crd_dirs = {std::string(TROUPE_SOURCE_DIR) + "/crds"};
    options.io_threads = 1;
    options.worker_threads = 1;
    auto* s =
        new apiserver::StandaloneServer(options, std::make_unique<testing::MemoryObjectStore>());
    auto started = s->start();
    TROUPE_CHECK(started.ok(), "server did not start: {}", started.error().describe());
    return s;
  }();
  return *instance;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const auto first = input.find('\n');
  if (first == std::string::npos) return 0;
  const auto second = input.find('\n', first + 1);
  if (second == std::string::npos) return 0;
  const std::string line = input.substr(0, first);
  const auto space = line.find(' ');
  if (space == std::string::npos) return 0;

  apiserver::http::Request request;
  request.method = line.substr(0, space);
  request.target = line.substr(space + 1);
  if (request.target.empty() || request.target[0] != '/') return 0;
  request.headers["content-type"] = input.substr(first + 1, second - first - 1);
  request.headers["authorization"] = "Bearer " + server().adminToken();
  request.body = input.substr(second + 1);
  request.remote = "127.0.0.1:1";
  apiserver::http::parseTarget(request);
  auto response = server().handle(request);
  TROUPE_CHECK(response.status != 500, "500 for {} {}: {}", request.method, request.target,
               response.body.substr(0, 500));
  return 0;
}
