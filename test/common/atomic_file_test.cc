#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "common/atomic_file.h"
#include "test/support/temp_dir.h"

namespace troupe {
namespace {

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::size_t filesIn(const std::filesystem::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

// Lowers this process's file size limit for its lifetime, as a full disk would stop a
// write: write() past it fails with EFBIG (SIGXFSZ, which would end the process, is
// ignored meanwhile).
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &saved_);
    previous_ = signal(SIGXFSZ, SIG_IGN);
    rlimit lowered = saved_;
    lowered.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &lowered);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &saved_);
    signal(SIGXFSZ, previous_);
  }

 private:
  rlimit saved_{};
  sighandler_t previous_ = SIG_DFL;
};

TEST_CASE("a file written atomically replaces the old one whole, with its mode", "[common]") {
  testing::TempDir dir;
  const auto path = std::filesystem::path(dir.path()) / "kubeconfig";
  REQUIRE(writeFileAtomically(path, "first\n", 0600).ok());
  REQUIRE(writeFileAtomically(path, "second\n", 0600).ok());
  CHECK(readFile(path) == "second\n");
  struct stat st {};
  REQUIRE(stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(filesIn(dir.path()) == 1);  // no temporary file left behind
}

TEST_CASE("a write that runs out of space leaves the old file as it was", "[common][faults]") {
  testing::TempDir dir;
  const auto path = std::filesystem::path(dir.path()) / "tokens";
  REQUIRE(writeFileAtomically(path, "old tokens\n", 0600).ok());
  Status written;
  {
    // The file system has room for 16 bytes more: the new text of 4 KB does not fit.
    FileSizeLimit limit(16);
    written = writeFileAtomically(path, std::string(4096, 't'), 0600);
  }
  REQUIRE_FALSE(written.ok());
  CHECK(written.error().code == ErrorCode::Internal);
  CHECK_THAT(written.error().message, Catch::Matchers::Contains("write " + path.string()));
  CHECK_THAT(written.error().message, Catch::Matchers::Contains("File too large"));
  CHECK(readFile(path) == "old tokens\n");
  CHECK(filesIn(dir.path()) == 1);
}

TEST_CASE("a write into a read-only directory fails and says so", "[common][faults]") {
  if (geteuid() == 0) {
    WARN(
        "skipped: running as root, whom a read-only directory does not stop (the "
        "file size limit test and the full filesystem test of troupe serve cover the case)");
    return;
  }
  testing::TempDir dir;
  const auto path = std::filesystem::path(dir.path()) / "kubeconfig";
  REQUIRE(writeFileAtomically(path, "old\n", 0600).ok());
  REQUIRE(chmod(dir.path().c_str(), 0555) == 0);
  auto written = writeFileAtomically(path, "new\n", 0600);
  chmod(dir.path().c_str(), 0755);
  REQUIRE_FALSE(written.ok());
  CHECK_THAT(written.error().message, Catch::Matchers::Contains("Permission denied"));
  CHECK(readFile(path) == "old\n");
}

}  // namespace
}  // namespace troupe
