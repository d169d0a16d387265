// The demo's own queue tree (examples/02-queues.yaml) over the demo cluster
// (examples/cluster.yaml: 16 nodes of 8 GPUs, 128 in all): `org` is guaranteed and
// limited to the whole cluster, so once the cluster is full every admission is checked
// against org's limit. Reclaim and priority preemption must still work there: the limit
// is checked with the victims' usage removed.
#include <catch2/catch.hpp>

#include "test/queueing/builders.h"
#include "test/queueing/scenario.h"

namespace troupe::queueing {
namespace {

using namespace testing;

constexpr std::int64_t kCore = 1000;  // milli-cores

// examples/02-queues.yaml, resource for resource.
std::vector<QueueSpec> demoQueues() {
  QueueSpec org = queue("org");
  org.guaranteed = ResourceVector::of(128, 1504 * kCore, 16000 * kGiB);
  org.limit[kGpu] = 128;
  QueueSpec a = queue("team-a").parent("org").weight(1).minRuntime(120);
  a.guaranteed = ResourceVector::of(64, 700 * kCore, 8000 * kGiB);
  a.limit[kGpu] = 96;
  QueueSpec b = queue("team-b").parent("org").weight(2).maxWait(1800);
  b.guaranteed = ResourceVector::of(32, 400 * kCore, 4000 * kGiB);
  b.limit[kGpu] = 128;
  b.lending_limit[kGpu] = 16;
  return {org, a, b};
}

// examples/cluster.yaml: 4 racks of 4 nodes, 8 GPUs, 94 cores and 1000 GiB each.
std::vector<NodeSpec> demoNodes() {
  std::vector<NodeSpec> out;
  for (int r = 1; r <= 4; ++r)
    for (int n = 1; n <= 4; ++n)
      out.push_back(node("gpu-r" + std::to_string(r) + "-n" + std::to_string(n))
                        .gpus(8)
                        .cpu(94 * kCore)
                        .memory(1000 * kGiB)
                        .rack("rack-" + std::to_string(r))
                        .block("block-" + std::to_string((r + 1) / 2)));
  return out;
}

std::string demoNode(int i) {
  return "gpu-r" + std::to_string(i / 4 + 1) + "-n" + std::to_string(i % 4 + 1);
}

// A job of the demo's kind: `pods` replicas of `gpus` GPUs, 10 cores and 100 GiB each.
GangBuilder job(const std::string& name, const std::string& queue, std::int32_t pods,
                std::int64_t gpus) {
  return gang(name).queue(queue).pods(pods).gpus(gpus).cpu(10 * kCore).memory(100 * kGiB);
}

// Puts a running one-pod gang of `gpus` GPUs on demo node `i`, from GPU `first` up.
RunningGang runningPod(GangSpec spec, int i, int first = 0, Seconds started = 0) {
  RunningGang r;
  r.spec = std::move(spec);
  r.start_time = started;
  PodPlacement p;
  p.node = demoNode(i);
  for (int k = 0; k < r.spec.pod_sets[0].shape->requests[kGpu]; ++k) p.gpus.push_back(first + k);
  r.pods.push_back(p);
  return r;
}

TEST_CASE("a team below its guarantee takes it back while org is at its limit",
          "[queueing][quota][reclaim]") {
  // team-a holds 49 GPUs (six full nodes and one GPU of a seventh), below its guarantee
  // of 64; team-b holds 78 (nine full nodes and six GPUs beside team-a's one): org holds
  // 127 of its limit 128.
  Engine e = engineWith(demoNodes(), demoQueues());
  for (int i = 0; i < 6; ++i)
    REQUIRE(e.addRunning(runningPod(job("a-" + std::to_string(i), "team-a", 1, 8), i)).ok());
  REQUIRE(e.addRunning(runningPod(job("a-small", "team-a", 1, 1), 6)).ok());
  REQUIRE(e.addRunning(runningPod(job("b-small", "team-b", 1, 6), 6, 1)).ok());
  for (int i = 7; i < 16; ++i)
    REQUIRE(e.addRunning(runningPod(job("b-" + std::to_string(i), "team-b", 1, 8), i, 0, i)).ok());
  REQUIRE(e.submit(job("a-new", "team-a", 2, 8).submittedAt(500)).ok());
  const Decisions d = e.schedule(1000);
  // Fair shares: team-a wants 49 + 16 = 65, team-b 78. Guarantees 64 and 32, the pool of
  // 32 split 1:2 among what each still wants: team-a 65, team-b 63. team-a ends at 65 of
  // 65; team-b, 78 of 63, loses two 8-GPU gangs and ends at 62, keeping its guarantee.
  // org: 127 - 16 + 16 = 128 of its limit 128.
  CHECK(admitted(d, "a-new"));
  CHECK(d.preemptions.size() == 2);
  for (const auto& p : d.preemptions) CHECK(p.queue == "team-b");
}

TEST_CASE("a high-priority job preempts lower ones of its own queue while org is at its limit",
          "[queueing][quota][preemption]") {
  // team-a holds 72 GPUs of priority 0, team-b 56: org holds 128 of its limit 128.
  Engine e = engineWith(demoNodes(), demoQueues());
  for (int i = 0; i < 9; ++i)
    REQUIRE(e.addRunning(runningPod(job("a-" + std::to_string(i), "team-a", 1, 8), i, 0, i)).ok());
  for (int i = 9; i < 16; ++i)
    REQUIRE(e.addRunning(runningPod(job("b-" + std::to_string(i), "team-b", 1, 8), i)).ok());
  REQUIRE(e.submit(job("a-urgent", "team-a", 2, 8).priority(10).submittedAt(500)).ok());
  const Decisions d = e.schedule(1000);
  // team-a: 72 + 16 = 88, within its limit 96; it is above its fair share (74 of the
  // 128: 64 + a third of the 32 left), so it may not reclaim from team-b, and takes the
  // room from its own lower-priority gangs: org 128 - 16 + 16 = 128.
  CHECK(admitted(d, "a-urgent"));
  REQUIRE(d.preemptions.size() == 2);
  for (const auto& p : d.preemptions) {
    CHECK(p.queue == "team-a");
    CHECK(p.reason == PreemptionReason::WithinQueue);
  }
}

TEST_CASE("a job that only org's limit holds back is told so, with the arithmetic",
          "[queueing][quota][explanation]") {
  // team-a holds 89 GPUs, team-b 38: org holds 127 of 128. team-b asks 40: 38 + 40 = 78 is
  // within its limit 128, but org would hold 167 of 128, and team-b, above its fair
  // share (78 of about 53), may take nothing from team-a.
  Engine e = engineWith(demoNodes(), demoQueues());
  for (int i = 0; i < 11; ++i)
    REQUIRE(e.addRunning(runningPod(job("a-" + std::to_string(i), "team-a", 1, 8), i)).ok());
  REQUIRE(e.addRunning(runningPod(job("a-small", "team-a", 1, 1), 11)).ok());
  REQUIRE(e.addRunning(runningPod(job("b-small", "team-b", 1, 6), 11, 1)).ok());
  for (int i = 12; i < 16; ++i)
    REQUIRE(e.addRunning(runningPod(job("b-" + std::to_string(i), "team-b", 1, 8), i)).ok());
  REQUIRE(e.submit(job("b-big", "team-b", 5, 8).submittedAt(500)).ok());
  const Decisions d = e.schedule(1000);
  CHECK(d.empty());
  const auto x = e.explanation("b-big");
  REQUIRE(x);
  CHECK(x->reason == PendingReason::QueueAtLimit);
  CHECK_THAT(describe(*x), Catch::Contains("org would hold 167 of its limit 128 nvidia.com/gpu "
                                           "(holds 127, this job asks 40)"));
}

TEST_CASE("a job larger than a limit on its path can never run, and is told so",
          "[queueing][quota][inadmissible]") {
  Engine e = engineWith(demoNodes(), demoQueues());
  REQUIRE(e.submit(job("b-huge", "team-b", 20, 8).submittedAt(500)).ok());
  REQUIRE(e.submit(job("a-huge", "team-a", 13, 8).submittedAt(500)).ok());
  e.schedule(1000);
  // 160 GPUs: above team-b's limit of 128 (and org's, and the cluster's); 104 above
  // team-a's 96. The first limit from the gang's queue up is named.
  CHECK_THAT(describe(*e.explanation("b-huge")),
             Catch::StartsWith("Inadmissible:") &&
                 Catch::Contains("team-b would hold 160 of its limit 128 nvidia.com/gpu"));
  CHECK_THAT(describe(*e.explanation("a-huge")),
             Catch::StartsWith("Inadmissible:") &&
                 Catch::Contains("team-a would hold 104 of its limit 96 nvidia.com/gpu"));
}

}  // namespace
}  // namespace troupe::queueing
