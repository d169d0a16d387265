#include <catch2/catch.hpp>

#include "controllers/first_status.h"
#include "controllers/object_json.h"
#include "controllers/pod_group_status.h"
#include "controllers/training_job_plan.h"
#include "test/controllers/builders.h"

using namespace troupe::controllers;
using namespace troupe::controllers::testing;

TEST_CASE("a first status is due once the scheduler explained the wait or 2 s have passed",
          "[controllers][first-status]") {
  Json group = podGroup("ml", "g");
  CHECK(firstStatusWait(group, kT0) == 2);
  CHECK(firstStatusWait(group, kT0 + 1) == 1);
  CHECK_FALSE(firstStatusWait(group, kT0 + 2));
  CHECK_FALSE(firstStatusWait(group, kT0 + 60));
  // A clock behind the API server's does not wait for a time it has not reached.
  CHECK_FALSE(firstStatusWait(group, kT0 - 1));
  // Already has a phase, or the scheduler has written why it waits: due now.
  CHECK_FALSE(firstStatusWait(podGroup("ml", "g").phase("Pending"), kT0));
  Json explained = podGroup("ml", "g");
  explained["status"]["pending"] = {{"reason", "NoPlacement"}};
  CHECK_FALSE(firstStatusWait(explained, kT0));
  // No creation time to count from: due now.
  Json unknown = podGroup("ml", "g");
  unknown["metadata"].erase("creationTimestamp");
  CHECK_FALSE(firstStatusWait(unknown, kT0));
  Json no_status = podGroup("ml", "g");
  no_status.erase("status");
  CHECK(firstStatusWait(no_status, kT0 + 1) == 1);
}

TEST_CASE("a new job creates its objects at once and writes Queued only when it is due",
          "[controllers][training-job][first-status]") {
  // Within the delay: the PodGroup, Service and pods are created, the status is not
  // written, and the plan asks to be made again when the status is due.
  TrainingJobInputs in{job("ml", "llm").replicas(2), std::nullopt, false, {}, kT0 + 1};
  auto plan = planTrainingJob(in);
  REQUIRE(plan.create.size() == 4);
  CHECK_FALSE(plan.status_changed);
  CHECK_FALSE(plan.status.contains("phase"));
  CHECK(plan.requeue_after == 1);

  // Still no pod bound when it is due: Queued, with the times and selector.
  Json pg = plan.create[0];
  TrainingJobInputs due{
      job("ml", "llm").replicas(2), pg, true, {plan.create[2], plan.create[3]}, kT0 + 2};
  auto queued = planTrainingJob(due);
  CHECK(queued.status_changed);
  CHECK(queued.status["phase"] == "Queued");
  CHECK(queued.status["queuedAt"] == "2026-01-01T00:00:00Z");
  CHECK(queued.create.empty());

  // The scheduler explained the wait before then: Queued at once, the explanation kept.
  Json explained = job("ml", "llm").replicas(2);
  explained["status"] = {{"pending", {{"reason", "NoPlacement"}}}};
  TrainingJobInputs early{explained, pg, true, {plan.create[2], plan.create[3]}, kT0 + 1};
  auto early_plan = planTrainingJob(early);
  CHECK(early_plan.status_changed);
  CHECK(early_plan.status["phase"] == "Queued");
  CHECK(early_plan.status["pending"]["reason"] == "NoPlacement");
}

TEST_CASE("a job admitted before its first status goes straight to Admitted",
          "[controllers][training-job][first-status]") {
  Json j = job("ml", "one").replicas(1);
  const Json pod0 = pod("ml", "one-0").group("one").index(0).boundTo("n1");
  TrainingJobInputs bound{j, Json(podGroup("ml", "one")), true, {pod0}, kT0};
  auto admitted = planTrainingJob(bound);
  CHECK(admitted.status_changed);
  CHECK(admitted.status["phase"] == "Admitted");
  CHECK_FALSE(admitted.requeue_after);
}

TEST_CASE("a new PodGroup keeps its empty status until its first status is due",
          "[controllers][pod-group][first-status]") {
  const std::vector<Json> waiting = {pod("ml", "p0").group("g"), pod("ml", "p1").group("g")};
  Json group = podGroup("ml", "g").minMember(2);
  CHECK(computePodGroupStatus(group, waiting, kT0 + 1) == group["status"]);
  CHECK(computePodGroupStatus(group, waiting, kT0 + 2)["phase"] == "Pending");
  // Bound before then: Admitted at once.
  const std::vector<Json> bound = {pod("ml", "p0").boundTo("n1"), pod("ml", "p1").boundTo("n1")};
  CHECK(computePodGroupStatus(group, bound, kT0 + 1)["phase"] == "Admitted");
  // A group of plain pods the scheduler explained: Pending at once, the explanation kept.
  Json explained = group;
  explained["status"]["pending"] = {{"reason", "NoPlacement"}};
  auto status = computePodGroupStatus(explained, waiting, kT0 + 1);
  CHECK(status["phase"] == "Pending");
  CHECK(status["pending"]["reason"] == "NoPlacement");
}
