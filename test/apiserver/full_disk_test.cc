// `troupe serve` (with its operator) on a filesystem that fills up, then turns read-only:
// a real 4 MiB tmpfs. Writes fail with 507 naming the cause, reads go on, /readyz says the
// server is not ready for writes, and a restart on the full (then read-only) filesystem
// either serves reads or exits with a message, never dies of a signal, and never leaves
// the kubeconfig or the tokens truncated. Mounting needs root and a container that allows
// it; elsewhere the test says so and stops (test/storage/full_disk_test.cc and
// test/common/atomic_file_test.cc cover the same logic without mounting).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sys/mount.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "test/support/https_client.h"
#include "test/support/serve_process.h"
#include "test/support/temp_dir.h"

namespace troupe::testing {
namespace {

using json = nlohmann::json;

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A tmpfs of `size` mounted on a fresh directory, unmounted at scope exit.
class SmallFilesystem {
 public:
  explicit SmallFilesystem(const std::string& size) {
    mounted_ = ::mount("tmpfs", dir_.path().c_str(), "tmpfs", 0, ("size=" + size).c_str()) == 0;
    if (!mounted_) why_ = std::strerror(errno);
  }
  ~SmallFilesystem() {
    if (mounted_) ::umount2(dir_.path().c_str(), MNT_DETACH);
  }
  bool mounted() const { return mounted_; }
  const std::string& why() const { return why_; }
  const std::string& path() const { return dir_.path(); }
  bool remountReadOnly() {
    return ::mount("tmpfs", dir_.path().c_str(), "tmpfs", MS_REMOUNT | MS_RDONLY, nullptr) == 0;
  }

 private:
  TempDir dir_;
  bool mounted_ = false;
  std::string why_;
};

HttpReply call(int port, const std::string& token, const std::string& method,
               const std::string& path, const std::string& body = "") {
  HttpCall c;
  c.method = method;
  c.path = path;
  c.token = token;
  c.body = body;
  if (!body.empty()) c.headers.emplace_back("Content-Type", "application/json");
  return httpsRequest(port, c);
}

std::string adminToken(const std::string& data_dir) {
  std::istringstream lines(readFile(data_dir + "/tokens"));
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    if (line.find(" *") != std::string::npos) return line.substr(0, line.find(' '));
  }
  return "";
}

// After a restart on a broken filesystem: the server serves reads, or it has exited with
// an exit code and said why. Either way no signal ended it.
void checkRestart(ServeProcess& serve, const std::string& token, const std::string& what) {
  INFO(what);
  serve.waitFor("/healthz");
  bool up = serve.start();
  if (up) {
    CHECK(call(serve.port(), token, "GET", "/api/v1/namespaces/default/configmaps").status == 200);
    auto ready = call(serve.port(), "", "GET", "/readyz?verbose");
    CHECK(ready.status == 500);
    CHECK_THAT(ready.body, Catch::Matchers::Contains("troupe-storage failed"));
    serve.kill();
    return;
  }
  auto code = serve.exited();
  REQUIRE(code.has_value());
  INFO("log:\n" << serve.log());
  CHECK(*code > 0);  // an exit, not a signal (a crash is -signal)
  CHECK_THAT(serve.log(), Catch::Matchers::Contains("troupe serve:"));
}

TEST_CASE("troupe serve on a full, then read-only, filesystem", "[apiserver][faults][e2e]") {
  if (geteuid() != 0) {
    WARN("skipped: mounting a small tmpfs needs root");
    return;
  }
  SmallFilesystem fs("4m");
  if (!fs.mounted()) {
    WARN("skipped: this machine does not allow mounting a tmpfs here (" << fs.why() << ")");
    return;
  }
  const std::string data = fs.path() + "/data";
  ServeProcess serve("28", data);
  serve.withOperator();
  REQUIRE(serve.start());
  const std::string token = adminToken(data);
  REQUIRE_FALSE(token.empty());
  const int port = serve.port();
  const std::string kubeconfig = readFile(data + "/kubeconfig");
  const std::string tokens = readFile(data + "/tokens");
  REQUIRE_FALSE(kubeconfig.empty());

  // Fill the filesystem with 256 KB ConfigMaps until a write fails.
  const std::string blob(256 * 1024, 'x');
  HttpReply failed;
  int stored = 0;
  for (int i = 0; i < 64; ++i) {
    auto reply = call(port, token, "POST", "/api/v1/namespaces/default/configmaps",
                      R"({"metadata":{"name":"fill-)" + std::to_string(i) + R"("},"data":{"x":")" +
                          blob + "\"}}");
    if (reply.status != 201) {
      failed = reply;
      break;
    }
    ++stored;
  }
  INFO("stored " << stored << " before the failure: " << failed.body);
  REQUIRE(failed.status == 507);
  auto status = json::parse(failed.body, nullptr, false);
  CHECK(status.value("reason", "") == "InsufficientStorage");
  CHECK_THAT(status.value("message", ""), Catch::Matchers::Contains("full"));
  // Reads go on; the server is alive but not ready for writes.
  CHECK(call(port, token, "GET", "/api/v1/namespaces/default/configmaps/fill-0").status == 200);
  CHECK(call(port, "", "GET", "/healthz").status == 200);
  auto ready = call(port, "", "GET", "/readyz?verbose");
  CHECK(ready.status == 500);
  CHECK_THAT(ready.body, Catch::Matchers::Contains("troupe-storage failed"));

  // A crash and a restart on the full filesystem, then on a read-only one.
  serve.kill();
  checkRestart(serve, token, "restarted on the full filesystem");
  CHECK(readFile(data + "/kubeconfig") == kubeconfig);
  CHECK(readFile(data + "/tokens") == tokens);
  REQUIRE(fs.remountReadOnly());
  checkRestart(serve, token, "restarted on the read-only filesystem");
  CHECK(readFile(data + "/kubeconfig") == kubeconfig);
  CHECK(readFile(data + "/tokens") == tokens);
}

}  // namespace
}  // namespace troupe::testing
