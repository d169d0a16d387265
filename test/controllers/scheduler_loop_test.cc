// The scheduler loop's stories against a real API (troupe serve's handler over an
// in-memory store, through the loopback) and a real SQLite state store: what one cycle
// reads, decides and writes back.
#include <catch2/catch.hpp>

#include "kube/resource_type.h"
#include "state/state_store.h"
#include "test/controllers/loop_cluster.h"

namespace troupe::controllers::testing {
namespace {

namespace res = kube::resources;

std::string nodeOf(LoopCluster& c, const std::string& pod) {
  return stringAt(c.get(res::kPods, "default", pod), "/spec/nodeName");
}

std::vector<std::string> openAdmissions(LoopCluster& c) {
  auto held = c.state().hold();
  auto open = c.state().journal().open();
  REQUIRE(open.ok());
  std::vector<std::string> gangs;
  for (const auto& record : *open) gangs.push_back(record.gang);
  return gangs;
}

std::optional<state::JobAccount> account(LoopCluster& c, const std::string& gang) {
  auto held = c.state().hold();
  auto found = c.state().accounting().find(gang);
  REQUIRE(found.ok());
  return *found;
}

// Two nodes of 8 GPUs, queue team-a guaranteed 16, and the gang default/train of 2 pods x 8
// GPUs: one pod a node.
void twoNodesAndAGangOfTwo(LoopCluster& c) {
  c.create(res::kNodes, node("n1", 8));
  c.create(res::kNodes, node("n2", 8));
  c.create(res::kQueues, queue("team-a", 16));
  c.create(res::kPodGroups, podGroup("train", "team-a", 2));
  c.create(res::kPods, pod("train-0", "train", 8));
  c.create(res::kPods, pod("train-1", "train", 8));
}

TEST_CASE("a gang that fits is bound whole in one cycle, journaled and accounted",
          "[controllers][scheduler-loop]") {
  LoopCluster c;
  twoNodesAndAGangOfTwo(c);

  c.runCycle();

  const auto n0 = nodeOf(c, "train-0"), n1 = nodeOf(c, "train-1");
  CHECK_FALSE(n0.empty());
  CHECK_FALSE(n1.empty());
  CHECK(n0 != n1);
  // The GPU indices travel with the binding onto the pod.
  CHECK(c.get(res::kPods, "default", "train-0")["metadata"]["annotations"].value(
            "troupe.dev/gpu-indices", "") == "0,1,2,3,4,5,6,7");
  CHECK(openAdmissions(c).empty());
  const auto a = account(c, "default/train");
  REQUIRE(a.has_value());
  CHECK(a->queue == "team-a");
  CHECK(a->admissions == 1);
  CHECK(a->running_gpus == 16);  // 2 pods x 8
  CHECK(c.loop().cycles() == 1);
}

TEST_CASE("a gang that does not fit gets no pod bound and its PodGroup says why",
          "[controllers][scheduler-loop]") {
  LoopCluster c;
  c.create(res::kNodes, node("n1", 8));
  c.create(res::kQueues, queue("team-a", 16));
  // 2 x 8 GPUs on one node of 8: never half of it.
  c.create(res::kPodGroups, podGroup("big", "team-a", 2));
  c.create(res::kPods, pod("big-0", "big", 8));
  c.create(res::kPods, pod("big-1", "big", 8));

  c.runCycle();

  CHECK(nodeOf(c, "big-0").empty());
  CHECK(nodeOf(c, "big-1").empty());
  CHECK(openAdmissions(c).empty());
  CHECK_FALSE(account(c, "default/big").has_value());
  const auto pending = c.get(res::kPodGroups, "default", "big")["status"]["pending"];
  CHECK(pending.value("queue", "") == "team-a");
  CHECK_FALSE(pending.value("reason", "").empty());
}

TEST_CASE(
    "a queue reclaims its guarantee: the borrower is preempted, the owner binds once "
    "the borrower's pod is gone",
    "[controllers][scheduler-loop]") {
  LoopCluster c;
  c.create(res::kNodes, node("n1", 8));
  c.create(res::kQueues, queue("owner", 8));
  c.create(res::kQueues, queue("borrower", 0));
  // The borrower takes the whole node while the owner has nothing to run; its pod stops
  // within 30 s of being deleted.
  c.create(res::kPodGroups, podGroup("lender", "borrower", 1));
  c.create(res::kPods, pod("lender-0", "lender", 8, 30));
  c.runCycle();
  REQUIRE(nodeOf(c, "lender-0") == "n1");

  // The owner's job arrives: 8 GPUs of its own guarantee, held by the borrower.
  c.create(res::kPodGroups, podGroup("claim", "owner", 1));
  c.create(res::kPods, pod("claim-0", "claim", 8));
  c.runCycle();
  const auto victim = c.get(res::kPods, "default", "lender-0");
  CHECK_FALSE(stringAt(victim, "/metadata/deletionTimestamp").empty());
  CHECK(annotation(c.get(res::kPodGroups, "default", "lender"), "troupe.dev/preempted-by") ==
        "default/claim");
  const auto lender = account(c, "default/lender");
  REQUIRE(lender.has_value());
  CHECK(lender->preemptions == 1);
  CHECK_FALSE(lender->running_since.has_value());
  // The victim still holds the GPUs through its grace period: the owner waits for it.
  CHECK(nodeOf(c, "claim-0").empty());
  CHECK(openAdmissions(c).empty());

  // Its containers stopped, the kubelet removes the pod; the next cycle binds the owner.
  c.removePod("default", "lender-0");
  c.runCycle();
  CHECK(nodeOf(c, "claim-0") == "n1");
  CHECK(openAdmissions(c).empty());
}

TEST_CASE("a new leader finishes a gang the last one left half bound, from the journal",
          "[controllers][scheduler-loop]") {
  LoopCluster c;
  twoNodesAndAGangOfTwo(c);
  // The leader before journaled the gang, bound its first pod and stopped.
  state::AdmissionRecord record{"default/train",
                                "team-a",
                                7,
                                0,
                                {{"default", "train-0", "n1", {0, 1, 2, 3, 4, 5, 6, 7}},
                                 {"default", "train-1", "n2", {0, 1, 2, 3, 4, 5, 6, 7}}}};
  REQUIRE(c.state().transaction([&] { return c.state().journal().begin(record); }).ok());
  Json binding = {{"apiVersion", "v1"},
                  {"kind", "Binding"},
                  {"metadata", {{"name", "train-0"}, {"namespace", "default"}}},
                  {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", "n1"}}}};
  REQUIRE(
      c.client().createSubresource({res::kPods, "default", "train-0", "binding"}, binding).ok());
  REQUIRE(openAdmissions(c) == std::vector<std::string>{"default/train"});

  c.runCycle();  // leads: recovers first

  CHECK(nodeOf(c, "train-0") == "n1");
  CHECK(nodeOf(c, "train-1") == "n2");  // where the record says, not where a cycle would put it
  CHECK(openAdmissions(c).empty());
}

TEST_CASE(
    "a failed accounting write rolls back the cycle's journal close, and the next cycle "
    "recovers the records",
    "[controllers][scheduler-loop]") {
  LoopCluster c;
  c.create(res::kNodes, node("n1", 8));
  c.create(res::kQueues, queue("team-a", 8));
  c.create(res::kPodGroups, podGroup("train", "team-a", 1));
  c.create(res::kPods, pod("train-0", "train", 8));
  // The accounting table refuses every new row, as a full disk would.
  auto& db = c.database().connection();
  REQUIRE(db.exec("CREATE TRIGGER refuse BEFORE INSERT ON job_accounting BEGIN "
                  "SELECT RAISE(ABORT, 'disk full'); END")
              .ok());

  c.runCycle();

  // The gang is bound, but nothing of the close was committed: its record is still open
  // and no accounting half written.
  CHECK(nodeOf(c, "train-0") == "n1");
  CHECK(openAdmissions(c) == std::vector<std::string>{"default/train"});
  CHECK_FALSE(account(c, "default/train").has_value());

  // The store takes writes again; the next cycle finishes the open record as a new leader
  // would (the gang stays bound where it is).
  REQUIRE(db.exec("DROP TRIGGER refuse").ok());
  c.runCycle();
  CHECK(openAdmissions(c).empty());
  CHECK(nodeOf(c, "train-0") == "n1");
}

}  // namespace
}  // namespace troupe::controllers::testing
