#include "kube/bearer_token.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

namespace troupe::kube {

BearerToken::BearerToken(std::string token, std::string token_file)
    : fixed_(std::move(token)), file_(std::move(token_file)) {}

Result<std::string> BearerToken::current() {
  if (file_.empty()) return fixed_;
  std::lock_guard lock(mu_);
  struct stat st {};
  if (::stat(file_.c_str(), &st) != 0) {
    if (!cached_.empty()) return cached_;
    return makeError(ErrorCode::Unauthorized, "tokenFile",
                     fmt::format("cannot read token file \"{}\"", file_));
  }
  const bool unchanged = st.st_ino == inode_ && st.st_size == size_ &&
                         st.st_mtim.tv_sec == mtime_.tv_sec && st.st_mtim.tv_nsec == mtime_.tv_nsec;
  if (unchanged && !cached_.empty()) return cached_;
  std::ifstream in(file_, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  std::string token = buffer.str();
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' ')) {
    token.pop_back();
  }
  if (!in || token.empty()) {
    if (!cached_.empty()) return cached_;
    return makeError(ErrorCode::Unauthorized, "tokenFile",
                     fmt::format("token file \"{}\" is empty or unreadable", file_));
  }
  cached_ = std::move(token);
  inode_ = st.st_ino;
  size_ = st.st_size;
  mtime_ = st.st_mtim;
  return cached_;
}

void BearerToken::invalidate() {
  std::lock_guard lock(mu_);
  inode_ = 0;
  size_ = -1;
  mtime_ = {};
}

}  // namespace troupe::kube
