#pragma once

#include <ctime>
#include <mutex>
#include <string>

#include "common/result.h"

// The bearer token sent with every request: a fixed string, or a file that is re-read
// whenever it changes (its inode, size or modification time), so that rotated
// service-account tokens are picked up without a restart. Thread-safe.
namespace troupe::kube {

class BearerToken {
 public:
  BearerToken(std::string token, std::string token_file);

  // The current token ("" when none is configured). A file that cannot be read keeps the
  // last good token and returns the read error only when there never was one.
  Result<std::string> current();
  // Forgets what was read so that the next current() reads the file again (after a 401).
  void invalidate();
  bool fromFile() const { return !file_.empty(); }

 private:
  const std::string fixed_;
  const std::string file_;
  std::mutex mu_;
  std::string cached_;  // guarded by mu_
  // Identity of the file version `cached_` came from; all zero means "read again".
  unsigned long inode_ = 0;
  long long size_ = -1;
  timespec mtime_{};
};

}  // namespace troupe::kube
