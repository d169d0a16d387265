#include <sstream>

#include <catch2/catch.hpp>

#include "test/helm/chart_files.h"

namespace troupe::helm_test {
namespace {

// The Dockerfile's instructions, continuation lines joined, comments dropped.
std::vector<std::string> instructions() {
  std::vector<std::string> out;
  std::string current;
  std::istringstream in(readText(sourcePath("Dockerfile")));
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    bool continues = !line.empty() && line.back() == '\\';
    if (continues) line.pop_back();
    current += line;
    if (!continues) {
      out.push_back(current);
      current.clear();
    }
  }
  return out;
}

bool has(const std::vector<std::string>& lines, const std::string& text) {
  for (const auto& line : lines)
    if (line.find(text) != std::string::npos) return true;
  return false;
}

TEST_CASE(
    "the image builds with the project's scripts and runs troupe operator as the "
    "chart's non-root user",
    "[helm][dockerfile]") {
  auto lines = instructions();
  REQUIRE(lines.size() > 5);
  CHECK(lines.front() == "FROM debian:bookworm AS build");
  CHECK(has(lines, "RUN scripts/bootstrap"));
  CHECK(has(lines, "scripts/build /build -DCMAKE_BUILD_TYPE=Release -DTROUPE_BUILD_TESTS=OFF"));
  CHECK(has(lines, "FROM debian:bookworm-slim AS runtime"));
  CHECK(has(lines, "COPY --from=build /out/troupe /usr/local/bin/troupe"));
  // The runtime stage ends as the user the chart's podSecurityContext names.
  auto values = YAML::LoadFile(sourcePath("helm/troupe/values.yaml").string());
  auto uid = values["podSecurityContext"]["runAsUser"].as<std::string>();
  auto n = lines.size();
  CHECK(lines[n - 3] == "USER " + uid + ":" + uid);
  CHECK(lines[n - 2] == R"(ENTRYPOINT ["/usr/local/bin/troupe"])");
  CHECK(lines[n - 1] == R"(CMD ["operator"])");
  // The state directory exists, owned by that user, where the chart mounts the state volume.
  CHECK(has(lines, "install -d -o " + uid + " -g " + uid + " " +
                       values["operator"]["stateDir"].as<std::string>()));
}

}  // namespace
}  // namespace troupe::helm_test
