#include "common/atomic_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

namespace troupe {

namespace {

Error failed(const char* step, const std::filesystem::path& path, int error_number) {
  return makeError(ErrorCode::Internal, path.string(),
                   fmt::format("{} {}: {}", step, path.string(), std::strerror(error_number)));
}

}  // namespace

Status writeFileAtomically(const std::filesystem::path& path, std::string_view contents,
                           mode_t mode) {
  std::string temp = path.string() + ".tmp.XXXXXX";
  int fd = ::mkstemp(temp.data());
  if (fd < 0) return failed("create a file beside", path, errno);
  auto abandon = [&](const char* step, int error_number) {
    ::close(fd);
    ::unlink(temp.c_str());
    return failed(step, path, error_number);
  };
  if (::fchmod(fd, mode) != 0) return abandon("set the mode of", errno);
  for (std::size_t written = 0; written < contents.size();) {
    ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return abandon("write", errno);
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) return abandon("flush", errno);
  if (::close(fd) != 0) {
    int error_number = errno;
    ::unlink(temp.c_str());
    return failed("close", path, error_number);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    int error_number = errno;
    ::unlink(temp.c_str());
    return failed("rename over", path, error_number);
  }
  std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
  int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);  // best effort: the file itself is whole either way
    ::close(dir_fd);
  }
  return {};
}

}  // namespace troupe
