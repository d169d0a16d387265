#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "test/queueing/builders.h"
#include "test/queueing/scenario.h"

namespace troupe::queueing {
namespace {

using namespace testing;

TEST_CASE("a gang past its queue's limit says so, with the queue's numbers",
          "[queueing][explanation]") {
  Engine e = engineWith(rackOfNodes("n", 4, 4), {queue("a").guaranteedGpus(8).limitGpus(16)});
  REQUIRE(e.addRunning(runningOn(gang("a-0").queue("a").gpus(8), {"n-0"})).ok());
  REQUIRE(e.submit(gang("a-1").queue("a").gpus(8).pods(2).submittedAt(1)).ok());
  const Decisions d = e.schedule(10);
  const auto p = pendingOf(e, d, "a-1");
  REQUIRE(p.has_value());
  // 8 held + 16 asked = 24 > limit 16.
  CHECK(p->reason == PendingReason::QueueAtLimit);
  CHECK(p->dominant_resource == "nvidia.com/gpu");
  CHECK(p->queue_allocated == 8);
  CHECK(p->queue_guaranteed == 8);
  CHECK(p->queue_limit == 16);
  CHECK(p->request[kGpu] == 16);
  CHECK(p->limited_by_quota);
  CHECK(p->limit_queue == "a");
  CHECK(describe(*p) ==
        "QueueAtLimit: a would hold 24 of its limit 16 nvidia.com/gpu (holds 8, this job asks "
        "16); no victim can be taken: no running gang may be preempted for it");
}

TEST_CASE("a gang naming a missing queue waits until the queue appears",
          "[queueing][explanation]") {
  Engine e = engineWith(rackOfNodes("n", 1, 1), {});
  REQUIRE(e.submit(gang("early").queue("later").gpus(8)).ok());
  Decisions d = e.schedule(0);
  REQUIRE(pendingOf(e, d, "early").has_value());
  CHECK(pendingOf(e, d, "early")->reason == PendingReason::QueueNotFound);
  REQUIRE(e.upsertQueue(queue("later")).ok());
  d = e.schedule(1);
  CHECK(admitted(d, "early"));
}

TEST_CASE("explanations are reported when they change, and stay readable",
          "[queueing][explanation]") {
  Engine e = engineWith(rackOfNodes("n", 1, 1), {queue("default")});
  REQUIRE(e.addRunning(runningOn(gang("busy").gpus(8), {"n-0"})).ok());
  REQUIRE(e.submit(gang("waiting").gpus(8).submittedAt(1)).ok());
  Decisions d = e.schedule(10);
  REQUIRE(pendingOf(e, d, "waiting").has_value());
  CHECK(pendingOf(e, d, "waiting")->reason == PendingReason::NoPlacement);
  CHECK(pendingOf(e, d, "waiting")->largest_free_domain_pods == 0);
  // Nothing changed: no new explanation, the current one is still there to read.
  d = e.schedule(11);
  CHECK(d.explained.empty());
  CHECK(reasonOf(e, "waiting") == PendingReason::NoPlacement);
}

TEST_CASE("a move of the queue's numbers alone reports no gang again, the numbers read are current",
          "[queueing][explanation]") {
  Engine e = engineWith(rackOfNodes("n", 2, 8), {queue("a"), queue("b")});
  REQUIRE(e.addRunning(runningOn(gang("busy").queue("a").gpus(8), {"n-0"})).ok());
  // Three pods of 8 GPUs cannot fit on two nodes whatever runs: Inadmissible.
  REQUIRE(e.submit(gang("wide").queue("a").gpus(8).pods(3).submittedAt(1)).ok());
  Decisions d = e.schedule(10);
  REQUIRE(pendingOf(e, d, "wide").has_value());
  const PendingExplanation before = *pendingOf(e, d, "wide");
  CHECK(before.reason == PendingReason::Inadmissible);
  CHECK(before.queue_allocated == 8);

  // Queue b's gang takes the free node: a's demand is unchanged, b's appears, so a's fair
  // share and the cluster's allocation move; nothing about why "wide" waits does.
  REQUIRE(e.submit(gang("other").queue("b").gpus(8).submittedAt(2)).ok());
  d = e.schedule(11);
  REQUIRE(admitted(d, "other"));
  CHECK_FALSE(pendingOf(e, d, "wide").has_value());
  const auto now = e.explanation("wide");
  REQUIRE(now.has_value());
  CHECK(now->reason == PendingReason::Inadmissible);
  const auto a = std::find_if(d.queues.begin(), d.queues.end(),
                              [](const QueueStatus& q) { return q.queue == "a"; });
  REQUIRE(a != d.queues.end());
  CHECK(now->queue_fair_share == a->fair_share[kGpu]);
  CHECK(now->queue_fair_share != before.queue_fair_share);
  CHECK(now->queue_allocated == 8);

  // Once a's own allocation moves (busy ends), its waiting gang reads the new figure.
  REQUIRE(e.remove("busy").ok());
  d = e.schedule(12);
  CHECK_FALSE(pendingOf(e, d, "wide").has_value());
  CHECK(e.explanation("wide")->queue_allocated == 0);
}

TEST_CASE("a new largest free domain alone names no gang again, the one read is current",
          "[queueing][explanation]") {
  Engine e = engineWith(rackOfNodes("n", 4, 4), {queue("default")});
  for (int i = 0; i < 4; ++i) {
    const std::string name = "busy-" + std::to_string(i);
    REQUIRE(e.addRunning(runningOn(gang(name).gpus(8), {"n-" + std::to_string(i)})).ok());
  }
  REQUIRE(e.submit(gang("wide").gpus(8).pods(3).submittedAt(1)).ok());
  Decisions d = e.schedule(10);
  REQUIRE(pendingOf(e, d, "wide").has_value());
  CHECK(pendingOf(e, d, "wide")->reason == PendingReason::NoPlacement);
  CHECK(pendingOf(e, d, "wide")->largest_free_domain_pods == 0);

  // One node frees: the rack now holds one of the three pods. Why "wide" waits is the
  // same, so it is not named; the explanation read says what the cycle found.
  REQUIRE(e.remove("busy-0").ok());
  d = e.schedule(11);
  CHECK_FALSE(admitted(d, "wide"));
  CHECK_FALSE(pendingOf(e, d, "wide").has_value());
  CHECK(e.explanation("wide")->reason == PendingReason::NoPlacement);
  CHECK(e.explanation("wide")->largest_free_domain_pods == 1);

  // A new reason is named at once: the queue now has a limit the gang is past (24 held +
  // 24 asked > 32), though not one it could never be within.
  REQUIRE(e.upsertQueue(queue("default").limitGpus(32)).ok());
  d = e.schedule(12);
  REQUIRE(pendingOf(e, d, "wide").has_value());
  CHECK(pendingOf(e, d, "wide")->reason == PendingReason::QueueAtLimit);
}

TEST_CASE("a preemption search that fails again the same way reports no gang again",
          "[queueing][explanation]") {
  Engine e = engineWith(rackOfNodes("n", 2, 2),
                        {queue("a").guaranteedGpus(8), queue("b").guaranteedGpus(8), queue("c")});
  REQUIRE(e.addRunning(runningOn(gang("b-1").queue("b").gpus(8).notPreemptible(), {"n-0"})).ok());
  REQUIRE(e.addRunning(runningOn(gang("b-2").queue("b").gpus(8).notPreemptible(), {"n-1"})).ok());
  REQUIRE(e.submit(gang("a-1").queue("a").gpus(8).submittedAt(1)).ok());
  Decisions d = e.schedule(10);
  const auto first = pendingOf(e, d, "a-1");
  REQUIRE(first.has_value());
  CHECK(first->reason == PendingReason::WaitingForReclaim);
  CHECK_FALSE(first->detail.empty());
  // New demand in c moves the fair shares, so a-1's search is made again; it fails the
  // same way, with the same sentence built anew: nothing about a-1 is news.
  REQUIRE(e.submit(gang("c-1").queue("c").gpus(8).submittedAt(2)).ok());
  d = e.schedule(11);
  CHECK(pendingOf(e, d, "c-1").has_value());
  CHECK_FALSE(pendingOf(e, d, "a-1").has_value());
  CHECK(e.explanation("a-1") == first);
}

TEST_CASE("pending explanations come in name order, also for names alike in their first bytes",
          "[queueing][explanation]") {
  Engine e = engineWith(rackOfNodes("n", 1, 1), {queue("default")});
  REQUIRE(e.addRunning(runningOn(gang("busy").gpus(8), {"n-0"})).ok());
  // Names that share 16 bytes or more, prefixes of one another, and a short one.
  const std::vector<std::string> names = {"training-job-abcdef-10",
                                          "training-job-abcdef-9",
                                          "training-job-abcdef-1",
                                          "training-job-abcdef",
                                          "training-job-abcdf",
                                          "training-job-abcde",
                                          "training-job-abcdef-1a",
                                          "b",
                                          "a"};
  REQUIRE(e.submit(gang("zz-leaves").gpus(8)).ok());
  for (const auto& n : names) REQUIRE(e.submit(gang(n).gpus(8).submittedAt(1)).ok());
  // The departed gang's slot goes to a gang whose name sorts first.
  REQUIRE(e.remove("zz-leaves").ok());
  REQUIRE(e.submit(gang("0-takes-its-place").gpus(8).submittedAt(2)).ok());
  const Decisions d = e.schedule(10);
  const std::vector<std::string>& got = d.explained;
  std::vector<std::string> want = names;
  want.push_back("0-takes-its-place");
  std::sort(want.begin(), want.end());
  CHECK(got == want);
}

TEST_CASE("queue statuses report fair share and allocation every cycle",
          "[queueing][explanation]") {
  Engine e = engineWith(rackOfNodes("n", 2, 2),
                        {queue("a").guaranteedGpus(8), queue("b").guaranteedGpus(8)});
  REQUIRE(e.submit(gang("a-1").queue("a").gpus(8)).ok());
  const Decisions d = e.schedule(0);
  REQUIRE(d.queues.size() == 2);
  // a wants 8 (its guarantee), b wants nothing: a's fair share 8, it holds 8: share 1.
  CHECK(d.queues[0].queue == "a");
  CHECK(d.queues[0].fair_share[kGpu] == 8);
  CHECK(d.queues[0].allocated[kGpu] == 8);
  CHECK(d.queues[0].dominant_share == Approx(1.0));
  CHECK(d.queues[1].fair_share[kGpu] == 0);
}

struct BadInput {
  std::string name;
  std::function<Status(Engine&)> act;
  std::string want_field;
};

TEST_CASE("bad input is an error naming the field and the rule", "[queueing][validation]") {
  const std::vector<BadInput> cases = {
      {"a gang without pod sets",
       [](Engine& e) {
         GangSpec g;
         g.name = "g";
         g.queue = "q";
         return e.submit(g);
       },
       "gangs[g].podSets"},
      {"minCount above count",
       [](Engine& e) {
         GangSpec g = gang("g").gpus(1).pods(2);
         g.pod_sets[0].min_count = 3;
         return e.submit(g);
       },
       "gangs[g].podSets[0].minCount"},
      {"a negative request", [](Engine& e) { return e.submit(gang("g").cpu(-5)); },
       "gangs[g].podSets[0].requests[1]"},
      {"a topology level the policy does not know",
       [](Engine& e) { return e.submit(gang("g").requireTopology("zone")); },
       "gangs[g].topology.level"},
      {"a duplicate gang",
       [](Engine& e) {
         REQUIRE(e.submit(gang("g")).ok());
         return e.submit(gang("g"));
       },
       "gangs[g]"},
      {"a node with more than 64 GPUs", [](Engine& e) { return e.upsertNode(node("n").gpus(65)); },
       "nodes[n].allocatable[nvidia.com/gpu]"},
      {"an NVLink island naming a missing GPU",
       [](Engine& e) {
         return e.upsertNode(node("n").gpus(4).islands({{0, 9}}));
       },
       "nodes[n].nvlinkIslands[0]"},
      {"a queue whose parent does not exist",
       [](Engine& e) { return e.upsertQueue(queue("q").parent("nowhere")); }, "queues[q].parent"},
      {"a queue guaranteed more than its limit",
       [](Engine& e) { return e.upsertQueue(queue("q").guaranteedGpus(10).limitGpus(4)); },
       "queues[q].guaranteed"},
      {"a running pod on a GPU another pod holds",
       [](Engine& e) {
         REQUIRE(e.upsertNode(node("n")).ok());
         REQUIRE(e.addRunning(runningOn(gang("a").gpus(2), {"n"})).ok());
         return e.addRunning(runningOn(gang("b").gpus(2), {"n"}));
       },
       "running[b].pods[0].gpus"},
      {"two pods of one running gang on the same GPUs",
       [](Engine& e) {
         REQUIRE(e.upsertNode(node("n")).ok());
         RunningGang r = runningOn(gang("a").gpus(2).pods(3), {"n", "n", "n"});
         r.pods[2].gpus = r.pods[0].gpus;
         return e.addRunning(r);
       },
       "running[a].pods[2].gpus"},
      {"removing a node that runs pods",
       [](Engine& e) {
         REQUIRE(e.upsertNode(node("n")).ok());
         REQUIRE(e.addRunning(runningOn(gang("a").gpus(2), {"n"})).ok());
         return e.removeNode("n");
       },
       "node.name"},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      Engine e;
      const Status s = tc.act(e);
      REQUIRE_FALSE(s.ok());
      CHECK(s.error().field_path == tc.want_field);
      CHECK_FALSE(s.error().message.empty());
    }
  }
}

TEST_CASE("the same snapshot in any element order gives the same decisions",
          "[queueing][determinism]") {
  Snapshot snap;
  snap.now = 100;
  snap.nodes = rackOfNodes("n", 6, 2);
  snap.queues = {queue("org").guaranteedGpus(24), queue("a").parent("org").guaranteedGpus(16),
                 queue("b").parent("org").guaranteedGpus(8), queue("c").guaranteedGpus(8)};
  for (int i = 0; i < 9; ++i)
    snap.pending.push_back(gang("g" + std::to_string(i))
                               .queue(std::string(1, static_cast<char>('a' + i % 3)))
                               .gpus(i % 2 ? 4 : 8)
                               .pods(1 + i % 3)
                               .submittedAt(i % 4));
  snap.running.push_back(runningOn(gang("r").queue("c").gpus(8), {"n-5"}, 0));
  const auto first = scheduleSnapshot(snap);
  REQUIRE(first.ok());
  Snapshot shuffled = snap;
  std::reverse(shuffled.nodes.begin(), shuffled.nodes.end());
  std::reverse(shuffled.queues.begin(), shuffled.queues.end());
  std::reverse(shuffled.pending.begin(), shuffled.pending.end());
  const auto second = scheduleSnapshot(shuffled);
  REQUIRE(second.ok());
  REQUIRE(first->decisions.admissions.size() == second->decisions.admissions.size());
  CHECK_FALSE(first->decisions.admissions.empty());
  for (std::size_t i = 0; i < first->decisions.admissions.size(); ++i) {
    CHECK(first->decisions.admissions[i].gang == second->decisions.admissions[i].gang);
    REQUIRE(first->decisions.admissions[i].pods.size() ==
            second->decisions.admissions[i].pods.size());
    for (std::size_t p = 0; p < first->decisions.admissions[i].pods.size(); ++p) {
      CHECK(first->decisions.admissions[i].pods[p].node ==
            second->decisions.admissions[i].pods[p].node);
      CHECK(first->decisions.admissions[i].pods[p].gpus ==
            second->decisions.admissions[i].pods[p].gpus);
    }
  }
  CHECK(first->decisions.explained == second->decisions.explained);
  REQUIRE(first->pending.size() == first->decisions.explained.size());
  REQUIRE(first->pending.size() == second->pending.size());
  for (std::size_t i = 0; i < first->pending.size(); ++i)
    CHECK(first->pending[i] == second->pending[i]);
}

// A cycle names the gangs it explains in name order, whatever order it tried them in. The
// names below differ within their first 8 bytes, only past them, or only past 16 (where
// the sort's keys end and whole names decide), and are submitted in a scrambled order.
TEST_CASE("the gangs a cycle explains are named in name order", "[queueing][explanation]") {
  const std::vector<std::string> names = {"train-long-prefix-shared-b",
                                          "a",
                                          "train-long-prefix-shared-a",
                                          "train-2",
                                          "b-0",
                                          "train-long-prefix-shared",
                                          "train-10",
                                          "z",
                                          "train-long-prefix-sharee",
                                          "train-1",
                                          "train-long-prefix",
                                          "ab"};
  // One node of 8 GPUs: the first gang runs there, the other eleven wait.
  Engine e = engineWith(rackOfNodes("n", 1, 1), {queue("q")});
  for (std::size_t i = 0; i < names.size(); ++i)
    REQUIRE(e.submit(gang(names[i]).queue("q").gpus(8).submittedAt(static_cast<Seconds>(i))).ok());
  const Decisions d = e.schedule(100);
  REQUIRE(d.admissions.size() == 1);
  CHECK(d.admissions[0].gang == names[0]);
  std::vector<std::string> sorted(names.begin() + 1, names.end());
  std::sort(sorted.begin(), sorted.end());
  CHECK(d.explained == sorted);
}

}  // namespace
}  // namespace troupe::queueing
