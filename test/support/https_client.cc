#include "test/support/https_client.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "test/support/temp_dir.h"

namespace troupe::testing {

namespace {

std::string shellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out.push_back(c);
    }
  }
  return out + "'";
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace

int freePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  int port = ntohs(addr.sin_port);
  close(fd);
  return port;
}

HttpReply httpsRequest(int port, const HttpCall& call) {
  TempDir dir;
  std::string body_file = dir.path() + "/body";
  std::string header_file = dir.path() + "/headers";
  std::string out_file = dir.path() + "/out";
  std::string command = "curl -sk --max-time " + std::to_string(call.max_seconds) + " -X " +
                        call.method + " -o " + shellQuote(out_file) + " -D " +
                        shellQuote(header_file) + " -w '%{http_code}'";
  command += " -A troupe-test/1.0";
  if (!call.token.empty()) command += " -H " + shellQuote("Authorization: Bearer " + call.token);
  // An empty value removes a header curl would add by itself ("Expect:").
  for (const auto& [name, value] : call.headers)
    command += " -H " + shellQuote(value.empty() ? name + ":" : name + ": " + value);
  if (!call.body.empty() || call.method == "POST" || call.method == "PUT" ||
      call.method == "PATCH") {
    std::ofstream(body_file) << call.body;
    command += " --data-binary @" + shellQuote(body_file);
    bool has_type = false;
    for (const auto& h : call.headers)
      if (h.first == "Content-Type") has_type = true;
    if (!has_type) command += " -H 'Content-Type: application/json'";
  }
  command += " " + shellQuote("https://127.0.0.1:" + std::to_string(port) + call.path);
  auto result = runCommand(command);
  HttpReply reply;
  reply.status = std::atoi(result.output.c_str());
  reply.body = readFile(out_file);
  std::istringstream headers(readFile(header_file));
  std::string line;
  while (std::getline(headers, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.erase(0, 1);
    reply.headers[name] = value;
  }
  reply.content_type = reply.headers["content-type"];
  return reply;
}

}  // namespace troupe::testing
