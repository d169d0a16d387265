#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "test/helm/chart_files.h"
#include "test/support/command.h"

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

TEST_CASE("the image carries the kubectl plugin beside troupe", "[helm][dockerfile]") {
  // The same binary under the name kubectl looks for on the PATH, as the build tree and
  // `cmake --install` place it; a relative link, so it follows the binary.
  CHECK(has(instructions(), "ln -s troupe /usr/local/bin/kubectl-troupe"));
}

// The Debian package that installed `path`, without its architecture ("libfmt9"), or "".
std::string packageOf(const std::string& path) {
  // Debian's /lib is a link to /usr/lib; dpkg knows each file by one of the two names.
  for (const std::string& candidate : {path, "/usr" + path}) {
    auto found = testing::runCommand("dpkg -S '" + candidate + "' 2>/dev/null", false);
    if (found.exit_code != 0) continue;
    auto package = found.output.substr(0, found.output.find(':'));
    if (!package.empty()) return package;
  }
  return "";
}

TEST_CASE("the runtime stage installs the package of every shared library troupe links",
          "[helm][dockerfile]") {
  // The base image brings the C and C++ runtimes.
  const std::set<std::string> base = {"libc6", "libstdc++6", "libgcc-s1"};
  std::string runtime_packages;
  for (const auto& line : instructions())
    if (line.find("apt-get install") != std::string::npos) runtime_packages = line;
  REQUIRE(!runtime_packages.empty());

  auto linked = testing::runCommand("ldd '" TROUPE_BINARY_DIR "/cmd/troupe'", false);
  REQUIRE(linked.exit_code == 0);
  std::istringstream lines(linked.output);
  std::size_t libraries = 0;
  for (std::string line; std::getline(lines, line);) {
    auto arrow = line.find("=> /");
    if (arrow == std::string::npos) continue;
    auto path = line.substr(arrow + 3, line.find(" (", arrow) - arrow - 3);
    auto package = packageOf(path);
    INFO(path << " from " << package);
    REQUIRE(!package.empty());
    ++libraries;
    if (base.contains(package)) continue;
    CHECK(runtime_packages.find(" " + package + " ") != std::string::npos);
  }
  CHECK(libraries >= 5);
}

}  // namespace
}  // namespace troupe::helm_test
