#include "cmd/serve_operator_token.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "apiserver/auth/token_file.h"
#include "common/atomic_file.h"

namespace troupe::cmd {

Result<std::string> serveOperatorToken(const std::string& data_dir) {
  std::error_code ec;
  std::filesystem::create_directories(data_dir, ec);
  if (ec) return makeError(ErrorCode::Internal, "--data-dir", ec.message());
  const std::string path = data_dir + "/tokens";
  // The admin token first: the server's kubeconfig takes the file's first admin token.
  if (auto made = apiserver::auth::TokenFile::loadOrCreate(path); !made) return made.error();
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::istringstream lines(text.str());
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string token, user, scope;
    if (fields >> token >> user >> scope && token[0] != '#' && user == kOperatorUser) return token;
  }
  const std::string token = apiserver::auth::randomToken();
  std::string contents = text.str();
  if (!contents.empty() && contents.back() != '\n') contents += '\n';
  contents += token + " " + kOperatorUser + " *\n";
  if (auto written = writeFileAtomically(path, contents, 0600); !written) return written.error();
  return token;
}

}  // namespace troupe::cmd
