// The demo tells the truth: `troupe serve` on the demo's own cluster (examples/cluster.yaml:
// 16 nodes of 8 GPUs) and its own queue tree (examples/02-queues.yaml: org guaranteed and
// limited to the whole 128 GPUs, team-a guaranteed 64 with a limit of 96, team-b guaranteed
// 32), driven with the real kubectl. With the cluster full and org at its limit, team-a
// takes its guarantee back within seconds, a high-priority job preempts a lower one of its
// own queue, and a job larger than a limit on its path is Inadmissible, saying which.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <string>

#include "test/support/demo_serve.h"

using namespace troupe::testing;
using Json = nlohmann::json;

namespace {

const std::string kExamples = std::string(TROUPE_SOURCE_DIR) + "/examples";

// A TrainingJob of `replicas` pods of 8 GPUs (10 cores, 100 GiB each) that runs for a day of
// simulated time.
std::string job(const std::string& ns, const std::string& name, int replicas,
                const std::string& priority = "training-normal") {
  return fmt::format(R"(apiVersion: troupe.dev/v1alpha1
kind: TrainingJob
metadata: {{name: {}, namespace: {}}}
spec:
  queue: {}
  priorityClassName: {}
  replicas: {}
  template:
    metadata:
      annotations: {{troupe.dev/sim-duration-seconds: "86400"}}
    spec:
      restartPolicy: Never
      containers:
      - name: trainer
        image: registry.example.com/trainer:1
        resources:
          requests: {{cpu: "10", memory: 100Gi}}
          limits: {{nvidia.com/gpu: 8}}
---
)",
                     name, ns, ns, priority, replicas);
}

class DemoCluster {
 public:
  DemoCluster() {
    DemoServeOptions options;
    options.args = {"--cluster", kExamples + "/cluster.yaml", "--sim-speed", "100"};
    serve_ = std::make_unique<DemoServe>(options);
    REQUIRE(serve_->start());
    for (const char* file : {"00-namespaces.yaml", "01-priority-classes.yaml", "02-queues.yaml"}) {
      auto applied = serve_->kubectl("apply -f " + kExamples + "/" + file);
      INFO(applied.output);
      REQUIRE(applied.exit_code == 0);
    }
  }
  ~DemoCluster() { serve_->stop(); }

  std::string kubectl(const std::string& args, const std::string& input = "") const {
    auto r = serve_->kubectl(args, input);
    INFO("kubectl " << args << "\n" << r.output);
    CHECK(r.exit_code == 0);
    return r.output;
  }
  // The object (or list) as JSON; an empty object when kubectl fails (the output holds its
  // stderr too, so the JSON is read from its first brace).
  Json get(const std::string& what) const {
    auto r = serve_->kubectl("get " + what + " -o json");
    const auto brace = r.output.find('{');
    if (r.exit_code != 0 || brace == std::string::npos) return Json::object();
    Json j = Json::parse(r.output.substr(brace), nullptr, false);
    return j.is_object() ? j : Json::object();
  }
  std::string phase(const std::string& ns, const std::string& name) const {
    return serve_->kubectl("get tj " + name + " -n " + ns + " -o jsonpath={.status.phase}").output;
  }
  // How many of `names` (in `ns`) are Running.
  int running(const std::string& ns, const std::vector<std::string>& names) const {
    int n = 0;
    for (const auto& name : names) n += phase(ns, name) == "Running" ? 1 : 0;
    return n;
  }
  std::string log() const { return serve_->log(); }

 private:
  std::unique_ptr<DemoServe> serve_;
};

// The string at a JSON pointer ("/status/pending/reason"), "" when absent.
std::string at(const Json& j, const std::string& pointer) {
  const Json::json_pointer p(pointer);
  return j.contains(p) && j.at(p).is_string() ? j.at(p).get<std::string>() : std::string();
}
std::int64_t count(const Json& j, const std::string& pointer) {
  const Json::json_pointer p(pointer);
  return j.contains(p) && j.at(p).is_number_integer() ? j.at(p).get<std::int64_t>() : -1;
}

std::vector<std::string> names(const std::string& prefix, int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

}  // namespace

TEST_CASE("the demo's tree: a full cluster, org at its limit, and team-a gets its guarantee back",
          "[operator][e2e][quota]") {
  DemoCluster demo;
  // team-a runs 6 jobs of 8 GPUs (48, below its guarantee of 64); team-b borrows the other
  // 80: org holds 128 of its limit 128.
  std::string yaml;
  for (const auto& n : names("a-", 6)) yaml += job("team-a", n, 1);
  for (const auto& n : names("b-", 10)) yaml += job("team-b", n, 1);
  demo.kubectl("apply -f -", yaml);
  REQUIRE(DemoServe::eventually([&] {
    return demo.running("team-a", names("a-", 6)) == 6 &&
           demo.running("team-b", names("b-", 10)) == 10;
  }));
  // org's status counts its subtree: 128 GPUs held by 16 running jobs.
  REQUIRE(DemoServe::eventually([&] {
    const Json org = demo.get("queue org");
    return count(org, "/status/running") == 16 &&
           at(org, "/status/allocated/nvidia.com~1gpu") == "128";
  }));

  // team-a asks 16 more, within its guarantee: org would hold 144 of 128, so team-b's
  // borrowed gangs make room. Fair shares: team-a 64, team-b 64; team-b holds 80.
  const auto asked = std::chrono::steady_clock::now();
  demo.kubectl("apply -f -", job("team-a", "a-back", 2));
  REQUIRE(DemoServe::eventually([&] { return demo.phase("team-a", "a-back") == "Running"; }));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count();
  std::printf("demo queues: team-a got its guarantee back in %.1f s\n", seconds);
  CHECK(seconds < 15);
  // Two of team-b's gangs gave way; team-a holds its 64, team-b 64, org 128.
  CHECK(demo.running("team-b", names("b-", 10)) == 8);
  REQUIRE(DemoServe::eventually([&] {
    return at(demo.get("queue team-a"), "/status/allocated/nvidia.com~1gpu") == "64" &&
           at(demo.get("queue org"), "/status/allocated/nvidia.com~1gpu") == "128";
  }));

  // A high-priority job preempts lower ones of its own queue while org is at its limit.
  // team-b holds 64 of a fair share of about 53 once its waiting gangs count: it may take
  // nothing from team-a, and takes from its own lower-priority jobs.
  demo.kubectl("apply -f -", job("team-b", "b-urgent", 2, "training-high"));
  REQUIRE(DemoServe::eventually([&] { return demo.phase("team-b", "b-urgent") == "Running"; }));
  CHECK(demo.running("team-b", names("b-", 10)) == 6);
  CHECK(demo.running("team-a", names("a-", 6)) == 6);
  CHECK(demo.phase("team-a", "a-back") == "Running");

  // A job larger than a limit on its path is Inadmissible, and says which.
  demo.kubectl("apply -f -", job("team-a", "a-huge", 13));  // 104 GPUs of team-a's 96
  REQUIRE(DemoServe::eventually([&] {
    return at(demo.get("tj a-huge -n team-a"), "/status/pending/reason") == "Inadmissible";
  }));
  const Json huge = demo.get("tj a-huge -n team-a");
  CHECK_THAT(at(huge, "/status/pending/message"),
             Catch::Contains("team-a would hold 104 of its limit 96 nvidia.com/gpu"));
  CHECK(at(huge, "/status/pending/limitedBy/queue") == "team-a");
  CHECK(at(huge, "/status/pending/limitedBy/limit") == "96");
  // The condition follows, with one Warning event; kubectl get tj shows the reason.
  auto condition = [&](const std::string& want) {
    const Json j = demo.get("tj a-huge -n team-a");
    const Json::json_pointer conditions("/status/conditions");
    if (!j.contains(conditions) || !j.at(conditions).is_array()) return false;
    for (const auto& c : j.at(conditions))
      if (c.value("type", "") == "Inadmissible") return c.value("status", "") == want;
    return false;
  };
  REQUIRE(DemoServe::eventually([&] { return condition("True"); }));
  CHECK_THAT(demo.kubectl("get tj a-huge -n team-a"), Catch::Contains("Inadmissible"));
  auto warnings = [&] {
    int n = 0;
    for (const auto& e : demo.get("events -n team-a").value("items", Json::array()))
      if (e.value("reason", "") == "Inadmissible" && at(e, "/involvedObject/name") == "a-huge")
        n += e.value("type", "") == "Warning" ? 1 : 100;
    return n;
  };
  REQUIRE(DemoServe::eventually([&] { return warnings() >= 1; }));
  // Not waiting in team-a's or org's figures: counted apart.
  REQUIRE(DemoServe::eventually([&] {
    const Json a = demo.get("queue team-a");
    const Json org = demo.get("queue org");
    return count(a, "/status/inadmissible") == 1 && count(a, "/status/pending") == 0 &&
           count(org, "/status/inadmissible") == 1 && count(org, "/status/pending") == 4;
  }));
  CHECK(warnings() == 1);  // once, though its status was written again since

  // Raising team-a's limit to 200 re-checks it: now org's limit holds it back (it holds
  // 128, and 128 + 104 > 128), and no victim may be taken for it.
  demo.kubectl(
      "patch queue team-a --type=merge -p "
      "'{\"spec\":{\"resources\":{\"nvidia.com/gpu\":{\"limit\":200}}}}'");
  REQUIRE(DemoServe::eventually([&] {
    const Json j = demo.get("tj a-huge -n team-a");
    return at(j, "/status/pending/reason") == "QueueAtLimit" &&
           at(j, "/status/pending/limitedBy/queue") == "org";
  }));
  CHECK_THAT(at(demo.get("tj a-huge -n team-a"), "/status/pending/message"),
             Catch::StartsWith("QueueAtLimit: org would hold 232 of its limit 128 nvidia.com/gpu"));
  REQUIRE(DemoServe::eventually([&] { return condition("False"); }));
  CHECK(warnings() == 1);
}
