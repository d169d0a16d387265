#include <catch2/catch.hpp>

#include "common/rfc3339.h"
#include "kubelet/pod_lifecycle.h"
#include "kubelet/pod_status.h"

using namespace troupe;
using namespace troupe::kubelet;
using json = nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;

namespace {

const Time kBound = parseRfc3339("2026-11-23T02:00:00Z").value();

// A fluent description of a pod at one point of its life.
struct PodBuilder {
  json pod = json::parse(R"({
    "metadata": {"name": "p", "namespace": "ns", "uid": "u1", "annotations": {}},
    "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "i:1"}]},
    "status": {"phase": "Pending"}})");
  PodBuilder& unbound() {
    pod["spec"].erase("nodeName");
    return *this;
  }
  PodBuilder& annotate(const std::string& key, const std::string& value) {
    pod["metadata"]["annotations"][key] = value;
    return *this;
  }
  PodBuilder& runningSince(Time started) {
    pod["status"] = runningStatus(pod, started);
    return *this;
  }
  PodBuilder& phase(const std::string& phase) {
    pod["status"]["phase"] = phase;
    return *this;
  }
  // Deleted at `requested` with `grace` seconds: the server sets deletionTimestamp to
  // requested + grace.
  PodBuilder& deleted(Time requested, int grace) {
    pod["metadata"]["deletionTimestamp"] = formatRfc3339(requested + seconds(grace));
    pod["metadata"]["deletionGracePeriodSeconds"] = grace;
    return *this;
  }
  json build() const { return pod; }
};

PodBuilder pod() { return PodBuilder{}; }

}  // namespace

TEST_CASE("the simulated kubelet walks a pod through its life", "[kubelet][pod-lifecycle]") {
  struct Case {
    std::string name;
    json pod;
    NodeHealth node = NodeHealth::Ready;
    double speed;
    Time now;
    PodDecision want;
  };
  const Time t0 = kBound;
  std::vector<Case> cases = {
      {"an unbound pod is no kubelet's", pod().unbound().build(), NodeHealth::Ready, 1, t0, {}},
      {"a pod on a node nobody simulates is left alone",
       pod().build(),
       NodeHealth::Unknown,
       1,
       t0 + seconds(60),
       {}},
      {"just bound: it starts after the 1 s start delay", pod().build(), NodeHealth::Ready, 1, t0,
       PodDecision::waitFor(milliseconds(1000))},
      {"at speed 4 the start delay is 1/4 s = 250 ms", pod().build(), NodeHealth::Ready, 4, t0,
       PodDecision::waitFor(milliseconds(250))},
      {"once the start delay passed it starts", pod().build(), NodeHealth::Ready, 1,
       t0 + milliseconds(1000), PodDecision::of(PodAction::Start)},
      {"an annotated start delay of 0 starts at once",
       pod().annotate("troupe.dev/sim-start-seconds", "0").build(), NodeHealth::Ready, 1, t0,
       PodDecision::of(PodAction::Start)},
      {"running without a duration: runs until deleted",
       pod().runningSince(t0).build(),
       NodeHealth::Ready,
       1,
       t0 + seconds(3600),
       {}},
      {"running 90 s at speed 10: ends 9 s after the start, so 4 s remain at t0+5s",
       pod().annotate("troupe.dev/sim-duration-seconds", "90").runningSince(t0).build(),
       NodeHealth::Ready, 10, t0 + seconds(5), PodDecision::waitFor(seconds(4))},
      {"the duration is over: it exits 0",
       pod().annotate("troupe.dev/sim-duration-seconds", "90").runningSince(t0).build(),
       NodeHealth::Ready, 10, t0 + seconds(9), PodDecision::exit(0)},
      {"the duration is over with an exit code: it exits with it",
       pod()
           .annotate("troupe.dev/sim-duration-seconds", "2")
           .annotate("troupe.dev/sim-exit-code", "3")
           .runningSince(t0)
           .build(),
       NodeHealth::Ready, 1, t0 + seconds(2), PodDecision::exit(3)},
      {"a Succeeded pod stays as it is",
       pod().phase("Succeeded").build(),
       NodeHealth::Ready,
       1,
       t0,
       {}},
      {"a Failed pod being deleted is removed", pod().phase("Failed").deleted(t0, 30).build(),
       NodeHealth::Ready, 1, t0, PodDecision::of(PodAction::Remove)},
      {"deleted with 30 s grace: it stops after the 1 s termination time",
       pod().runningSince(t0).deleted(t0 + seconds(10), 30).build(), NodeHealth::Ready, 1,
       t0 + seconds(10), PodDecision::waitFor(seconds(1))},
      {"the termination time is over: removed",
       pod().runningSince(t0).deleted(t0 + seconds(10), 30).build(), NodeHealth::Ready, 1,
       t0 + seconds(11), PodDecision::of(PodAction::Remove)},
      {"a slow termination (120 s) is cut at the 30 s grace period",
       pod()
           .annotate("troupe.dev/sim-termination-seconds", "120")
           .runningSince(t0)
           .deleted(t0, 30)
           .build(),
       NodeHealth::Ready, 1, t0 + seconds(29), PodDecision::waitFor(seconds(1))},
      {"a slow termination at speed 10: 20 s / 10 = 2 s",
       pod()
           .annotate("troupe.dev/sim-termination-seconds", "20")
           .runningSince(t0)
           .deleted(t0, 30)
           .build(),
       NodeHealth::Ready, 10, t0 + seconds(1), PodDecision::waitFor(seconds(1))},
      {"a pod on a NotReady node fails", pod().runningSince(t0).build(), NodeHealth::NotReady, 1,
       t0 + seconds(5), PodDecision::of(PodAction::FailNodeLost)},
      {"a pending pod on a deleted node fails", pod().build(), NodeHealth::Deleted, 1, t0,
       PodDecision::of(PodAction::FailNodeLost)},
      {"a terminating pod on a NotReady node fails first",
       pod().runningSince(t0).deleted(t0, 30).build(), NodeHealth::NotReady, 1, t0,
       PodDecision::of(PodAction::FailNodeLost)},
      {"invalid annotations fail the pod with the reason",
       pod().annotate("troupe.dev/sim-exit-code", "-1").build(), NodeHealth::Ready, 1, t0,
       PodDecision::failInvalid(
           "metadata.annotations[troupe.dev/sim-exit-code]: Invalid value: \"-1\": must "
           "be an integer from 0 to 255")},
      {"invalid annotations do not keep a deleted pod: default termination time",
       pod().annotate("troupe.dev/sim-exit-code", "x").runningSince(t0).deleted(t0, 30).build(),
       NodeHealth::Ready, 1, t0 + seconds(1), PodDecision::of(PodAction::Remove)},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      PodMemory memory;
      memory.first_seen_bound = kBound;
      auto speed = SimSpeed::parse(tc.speed).value();
      PodDecision got = decidePod(tc.pod, tc.node, memory, tc.now, speed);
      INFO("got " << podActionName(got.action) << " wait " << got.wait.count() << " ms");
      CHECK(got == tc.want);
    }
  }
}

TEST_CASE("the precise start time remembered wins over the status' whole seconds",
          "[kubelet][pod-lifecycle]") {
  // The status says 02:00:00 (truncated); the kubelet started it at 02:00:00.700.
  Time precise = kBound + milliseconds(700);
  json p = pod().annotate("troupe.dev/sim-duration-seconds", "1").runningSince(kBound).build();
  auto speed = SimSpeed::parse(1).value();
  PodMemory remembered;
  remembered.first_seen_bound = kBound;
  remembered.started = precise;
  // Ends at 02:00:01.700: at 02:00:01.200, 500 ms remain.
  CHECK(decidePod(p, NodeHealth::Ready, remembered, kBound + milliseconds(1200), speed) ==
        PodDecision::waitFor(milliseconds(500)));
  // After a restart nothing is remembered: the status' startedAt (02:00:00) is used.
  CHECK(decidePod(p, NodeHealth::Ready, PodMemory{kBound, std::nullopt},
                  kBound + milliseconds(1200), speed) == PodDecision::exit(0));
}
