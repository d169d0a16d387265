#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>

#include "test/support/demo_serve.h"
#include "test/support/serve_process.h"

using namespace troupe::testing;

namespace {

// The first line of `text` that contains `needle`, without its newline.
std::string lineWith(const std::string& text, const std::string& needle) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (line.find(needle) != std::string::npos) return line;
  return "";
}

}  // namespace

TEST_CASE("kubectl runs `kubectl troupe` from an installed troupe against troupe serve",
          "[cli][kubectl][e2e]") {
  // `cmake --install` puts troupe and the plugin's link in PREFIX/bin, as the demo does.
  TempDir prefix;
  auto installed = runCommand("cmake --install " + std::string(TROUPE_BINARY_DIR) + " --prefix " +
                              prefix.path());
  INFO(installed.output);
  REQUIRE(installed.exit_code == 0);
  const std::string bin = prefix.path() + "/bin";
  REQUIRE(std::filesystem::is_symlink(bin + "/kubectl-troupe"));
  CHECK(std::filesystem::read_symlink(bin + "/kubectl-troupe") == "troupe");

  DemoServeOptions options;
  options.binary = bin + "/troupe";
  DemoServe serve(options);
  REQUIRE(serve.start());
  REQUIRE(serve.kubectl("apply -f -", demoQueuesYaml()).exit_code == 0);
  REQUIRE(serve.kubectl("apply -f -", demoRunningJobsYaml()).exit_code == 0);
  REQUIRE(DemoServe::eventually([&] {
    return serve.kubectl("get tj -n team-a -o jsonpath='{.items[*].status.phase}'").output ==
               "Running Running" &&
           serve.kubectl("get queue team-a -o jsonpath='{.status.allocated.nvidia\\.com/gpu}'")
                   .output == "24";
  }));
  REQUIRE(serve.kubectl("apply -f -", demoWaitingJobsYaml()).exit_code == 0);
  REQUIRE(DemoServe::eventually([&] {
    return serve.kubectl("get tj -n team-a -o jsonpath='{.items[*].status.pending.reason}'")
               .output == "QueueAtLimit QueueAtLimit";
  }));
  // kubectl finds the plugin on the PATH and hands it the environment's kubeconfig.
  auto plugin = [&](const std::string& args) {
    return runCommand("PATH=" + bin + ":$PATH KUBECONFIG=" + serve.kubeconfig() +
                          " timeout 60 kubectl troupe " + args,
                      false);
  };

  auto queues = plugin("queues");
  INFO(queues.output);
  CHECK(queues.exit_code == 0);
  // team-a: 16 held within its 16 guaranteed, then 8 borrowed, up to its limit of 24; 24
  // cells over the 32-GPU cluster are 4/3 GPU each: 12 cells held, 6 borrowed, 6 blank.
  CHECK_THAT(queues.output,
             Catch::Contains("├─ team-a  [████████████▓▓▓▓▓▓      ]  24         16"));
  CHECK_THAT(queues.output,
             Catch::Contains("└─ team-b  [░░░░░░░░░░░░············]  0          16"));
  CHECK_THAT(queues.output, Catch::Contains("team-a borrows 8 GPU from team-b\n"));

  auto jobs = plugin("jobs");
  INFO(jobs.output);
  CHECK(jobs.exit_code == 0);
  CHECK_THAT(lineWith(jobs.output, "a-urgent"),
             Catch::Matches("team-a +team-a/a-urgent +TrainingJob +Queued +0/1 +8 +"
                            "demo-high \\(10000\\) +[0-9]+s +1 of 2 +QueueAtLimit"));
  CHECK_THAT(lineWith(jobs.output, "a-late"),
             Catch::Matches(".* demo-normal \\(1000\\) +[0-9]+s +2 of 2 +QueueAtLimit"));

  auto why = plugin("why a-late -n team-a");
  INFO(why.output);
  CHECK(why.exit_code == 0);
  CHECK_THAT(why.output, Catch::Contains("estimated position 2 of 2"));
  CHECK_THAT(why.output, Catch::Contains("Why: QueueAtLimit\n"));
  CHECK_THAT(why.output, Catch::Contains("team-a: holds + request = 24 + 8 = 32 > limit 24\n"));
  CHECK_THAT(why.output,
             Catch::Contains("8 nvidia.com/gpu of queue team-a's admitted gangs finishing"));

  auto running = plugin("why a-big -n team-a");
  CHECK_THAT(running.output, Catch::Contains("Running in queue team-a"));
  CHECK_THAT(lineWith(running.output, "a-big-0"),
             Catch::Matches("  a-big-0 on gpu-r[12]-n[12] GPUs \\[0,1,2,3,4,5,6,7\\]"));

  // kubectl's own flags are the plugin's too, before or after the command.
  auto flagged = runCommand(
      "PATH=" + bin + ":$PATH timeout 60 kubectl troupe queues --kubeconfig " + serve.kubeconfig(),
      false);
  CHECK(flagged.exit_code == 0);
  CHECK(flagged.output == queues.output);

  auto top = plugin("top");
  INFO(top.output);
  CHECK_THAT(top.output, Catch::StartsWith("GPUs held: 24 of 32 (75%) on 4 nodes\n"));
  CHECK_THAT(top.output, Catch::Contains("team-a  24    75%    3\n"));

  auto missing = runCommand("PATH=" + bin + ":$PATH KUBECONFIG=" + serve.kubeconfig() +
                            " kubectl troupe why nope -n team-a");
  CHECK(missing.exit_code == 1);
  CHECK_THAT(missing.output,
             Catch::Contains("no TrainingJob or PodGroup \"nope\" in namespace \"team-a\""));
  CHECK(serve.stop() == 0);
}
