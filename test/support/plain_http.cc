#include "test/support/plain_http.h"

#include <fstream>
#include <sstream>

#include "test/support/command.h"
#include "test/support/temp_dir.h"

namespace troupe::testing {

PlainReply plainHttp(const std::string& method, const std::string& url,
                     const std::vector<std::pair<std::string, std::string>>& headers,
                     int max_seconds) {
  TempDir dir;
  std::string command = "curl -sS -N -X " + method + " --max-time " + std::to_string(max_seconds) +
                        " -o " + dir.file("body") + " -w '%{http_code}'";
  for (const auto& [name, value] : headers) command += " -H '" + name + ": " + value + "'";
  command += " '" + url + "'";
  auto result = runCommand(command, false);
  PlainReply reply;
  try {
    reply.status = std::stoi(result.output);
  } catch (const std::exception&) {
    reply.status = 0;
  }
  std::ifstream in(dir.file("body"));
  std::stringstream body;
  body << in.rdbuf();
  reply.body = body.str();
  return reply;
}

}  // namespace troupe::testing
