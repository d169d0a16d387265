#include <catch2/catch.hpp>

#include <map>

#include "controllers/conditions.h"
#include "controllers/job_objects.h"
#include "controllers/object_json.h"
#include "controllers/training_job_plan.h"
#include "test/controllers/builders.h"

using namespace troupe::controllers;
using namespace troupe::controllers::testing;

namespace {

std::map<std::string, std::string> envOf(const Json& pod) {
  std::map<std::string, std::string> out;
  for (const auto& e : pod["spec"]["containers"][0]["env"]) out[e["name"]] = e["value"];
  return out;
}

PodBuilder jobPod(const std::string& name, int index, int restart = 0) {
  return pod("ml", name + "-" + std::to_string(index))
      .group(name)
      .index(index)
      .annotate("troupe.dev/gang-restart", std::to_string(restart));
}

}  // namespace

TEST_CASE("a replica pod carries its rank, the world size and replica 0's DNS name",
          "[controllers][job-objects]") {
  Json j = job("ml", "llm").replicas(4).annotate("troupe.dev/launcher", "mpi");
  auto p = renderPod(j, 2, 0);
  CHECK(p["metadata"]["name"] == "llm-2");
  CHECK(p["metadata"]["labels"]["troupe.dev/job-name"] == "llm");
  CHECK(p["metadata"]["labels"]["troupe.dev/pod-group"] == "llm");
  CHECK(p["metadata"]["labels"]["troupe.dev/replica-index"] == "2");
  CHECK(p["metadata"]["labels"]["app"] == "llm");
  CHECK(p["metadata"]["ownerReferences"][0]["kind"] == "TrainingJob");
  CHECK(p["metadata"]["ownerReferences"][0]["controller"] == true);
  CHECK(p["spec"]["schedulerName"] == "troupe");
  CHECK(p["spec"]["hostname"] == "llm-2");
  CHECK(p["spec"]["subdomain"] == "llm");
  CHECK(p["spec"]["restartPolicy"] == "Never");
  auto env = envOf(p);
  CHECK(env["RANK"] == "2");
  CHECK(env["WORLD_SIZE"] == "4");
  CHECK(env["LOCAL_RANK"] == "0");
  CHECK(env["MASTER_ADDR"] == "llm-0.llm.ml.svc");
  CHECK(env["MASTER_PORT"] == "29500");
  CHECK(env["OMPI_COMM_WORLD_RANK"] == "2");
  CHECK(env["OMPI_COMM_WORLD_SIZE"] == "4");
  // The template's own RANK is replaced, its other variables kept, each once.
  CHECK(env["K"] == "v");
  CHECK(p["spec"]["containers"][0]["env"].size() == env.size());
  CHECK_FALSE(env.contains("PET_NNODES"));
}

TEST_CASE("an elastic job's pods tell torchrun the node range", "[controllers][job-objects]") {
  Json j = job("ml", "e").replicas(4).minReplicas(2).annotate("troupe.dev/master-port", "1234");
  auto env = envOf(renderPod(j, 0, 0));
  CHECK(env["PET_NNODES"] == "2:4");
  CHECK(env["MASTER_PORT"] == "1234");
  CHECK_FALSE(env.contains("OMPI_COMM_WORLD_RANK"));
}

TEST_CASE("the PodGroup and Service of a job carry what the scheduler loop reads",
          "[controllers][job-objects]") {
  Json j = job("ml", "llm")
               .replicas(4)
               .minReplicas(2)
               .set("/spec/preemptible", false)
               .set("/spec/topology", Json{{"level", "troupe.dev/rack"}, {"mode", "Required"}});
  auto pg = renderPodGroup(j, 123);
  CHECK(pg["spec"]["minMember"] == 2);
  CHECK(pg["spec"]["queue"] == "team-a");
  CHECK(pg["metadata"]["annotations"]["troupe.dev/preemptible"] == "false");
  CHECK(pg["metadata"]["annotations"]["troupe.dev/topology-level"] == "troupe.dev/rack");
  CHECK(pg["metadata"]["annotations"]["troupe.dev/topology-mode"] == "Required");
  CHECK(pg["metadata"]["annotations"]["troupe.dev/submitted-at"] == "123");
  auto svc = renderService(j);
  CHECK(svc["spec"]["clusterIP"] == "None");
  CHECK(svc["spec"]["selector"]["troupe.dev/job-name"] == "llm");
}

TEST_CASE("a new job gets its PodGroup, Service and unbound pods, then nothing more",
          "[controllers][training-job]") {
  TrainingJobInputs in{job("ml", "llm").replicas(2), std::nullopt, false, {}, kT0 + 5};
  auto plan = planTrainingJob(in);
  REQUIRE(plan.create.size() == 4);
  CHECK(plan.create[0]["kind"] == "PodGroup");
  CHECK(plan.create[1]["kind"] == "Service");
  CHECK(plan.create[2]["metadata"]["name"] == "llm-0");
  CHECK(plan.create[3]["metadata"]["name"] == "llm-1");
  CHECK(plan.status["phase"] == "Queued");
  CHECK(plan.status["queuedAt"] == "2026-01-01T00:00:00Z");
  CHECK(plan.status["selector"] == "troupe.dev/job-name=llm");
  CHECK(plan.status_changed);

  // Level-triggered: planning again on the result creates nothing and changes nothing.
  Json j2 = job("ml", "llm").replicas(2).status(plan.status);
  TrainingJobInputs again{j2, plan.create[0], true, {plan.create[2], plan.create[3]}, kT0 + 6};
  auto second = planTrainingJob(again);
  CHECK(second.create.empty());
  CHECK(second.deletions.empty());
  CHECK_FALSE(second.status_changed);
}

TEST_CASE("the phase follows the pods of the gang", "[controllers][training-job]") {
  struct Case {
    std::string name;
    std::vector<Json> pods;
    Json pod_group_status;
    std::string want_phase;
    int want_ready;
  };
  Json preempted = {
      {"conditions",
       {{{"type", "Preempted"}, {"status", "True"}, {"message", "Preempted by ml/other"}}}}};
  std::vector<Case> cases = {
      {"no pod bound: Queued", {jobPod("llm", 0), jobPod("llm", 1)}, Json::object(), "Queued", 0},
      {"no pod bound after a preemption: Suspended",
       {jobPod("llm", 0), jobPod("llm", 1)},
       preempted,
       "Suspended",
       0},
      {"bound, not yet running: Admitted",
       {jobPod("llm", 0).boundTo("n1"), jobPod("llm", 1).boundTo("n1")},
       Json::object(),
       "Admitted",
       0},
      {"all bound pods run: Running",
       {jobPod("llm", 0).boundTo("n1").phase("Running"),
        jobPod("llm", 1).boundTo("n2").phase("Running")},
       Json::object(),
       "Running",
       2},
      {"a pod succeeded and none holds a node: Succeeded",
       {jobPod("llm", 0).boundTo("n1").phase("Succeeded"),
        jobPod("llm", 1).boundTo("n2").phase("Succeeded")},
       Json::object(),
       "Succeeded",
       0},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      Json pg = podGroup("ml", "llm");
      pg["status"] = tc.pod_group_status;
      auto plan = planTrainingJob({job("ml", "llm").replicas(2), pg, true, tc.pods, kT0 + 60});
      CHECK(plan.status["phase"] == tc.want_phase);
      CHECK(plan.status.value("readyReplicas", 0) == tc.want_ready);
    }
  }
}

TEST_CASE("a failed pod restarts the whole gang after the backoff, then the job fails",
          "[controllers][training-job]") {
  std::vector<Json> pods = {jobPod("llm", 0).boundTo("n1").phase("Running"),
                            jobPod("llm", 1).boundTo("n2").phase("Failed")};
  auto first =
      planTrainingJob({job("ml", "llm"), Json(podGroup("ml", "llm")), true, pods, kT0 + 100});
  CHECK(first.status["restarts"] == 1);
  CHECK(first.status["phase"] == "Queued");
  CHECK(first.deletions.size() == 2);
  CHECK(first.create.empty());
  // backoff: 10 s for the first restart.
  REQUIRE(first.requeue_after);
  CHECK(*first.requeue_after == 10);

  // The pods are gone; 5 s later the backoff still holds the gang back.
  auto waiting = planTrainingJob(
      {job("ml", "llm").status(first.status), Json(podGroup("ml", "llm")), true, {}, kT0 + 105});
  CHECK(waiting.create.empty());
  CHECK(*waiting.requeue_after == 5);

  // After it, the gang is recreated for restart 1.
  auto recreated = planTrainingJob(
      {job("ml", "llm").status(first.status), Json(podGroup("ml", "llm")), true, {}, kT0 + 111});
  REQUIRE(recreated.create.size() == 2);
  CHECK(recreated.create[0]["metadata"]["annotations"]["troupe.dev/gang-restart"] == "1");

  // maxRestarts is 2: a failure at restart 2 fails the job.
  Json at_limit = recreated.status;
  at_limit["restarts"] = 2;
  std::vector<Json> failing = {jobPod("llm", 0, 2).boundTo("n1").phase("Failed"),
                               jobPod("llm", 1, 2).boundTo("n2").phase("Running")};
  auto failed = planTrainingJob(
      {job("ml", "llm").status(at_limit), Json(podGroup("ml", "llm")), true, failing, kT0 + 200});
  CHECK(failed.status["phase"] == "Failed");
  CHECK(failed.status["completedAt"] == troupe::controllers::formatTimestamp(kT0 + 200));
  CHECK(failed.deletions.size() == 1);  // the running pod; the failed one is kept for its logs
}

TEST_CASE("suspend deletes the pods and keeps the job, resume recreates them",
          "[controllers][training-job]") {
  std::vector<Json> pods = {jobPod("llm", 0).boundTo("n1").phase("Running"),
                            jobPod("llm", 1).boundTo("n2").phase("Running")};
  auto suspended = planTrainingJob(
      {job("ml", "llm").suspend(true), Json(podGroup("ml", "llm")), true, pods, kT0});
  CHECK(suspended.status["phase"] == "Suspended");
  CHECK(suspended.deletions.size() == 2);
  CHECK_FALSE(suspended.delete_job);

  auto resumed = planTrainingJob({job("ml", "llm").suspend(false).status(suspended.status),
                                  Json(podGroup("ml", "llm")),
                                  true,
                                  {},
                                  kT0 + 1});
  CHECK(resumed.status["phase"] == "Queued");
  CHECK(resumed.create.size() == 2);
}

TEST_CASE("a finished job is deleted once its TTL has passed", "[controllers][training-job]") {
  Json status = {{"phase", "Succeeded"}, {"completedAt", formatTimestamp(kT0)}};
  auto j = job("ml", "llm").status(status).set("/spec/ttlSecondsAfterFinished", 30);
  auto early = planTrainingJob({j, std::nullopt, true, {}, kT0 + 10});
  CHECK_FALSE(early.delete_job);
  CHECK(*early.requeue_after == 20);
  CHECK(early.create.empty());
  auto late = planTrainingJob({j, std::nullopt, true, {}, kT0 + 30});
  CHECK(late.delete_job);
}

TEST_CASE("scaling down deletes the pods past the new size", "[controllers][training-job]") {
  std::vector<Json> pods = {jobPod("llm", 0), jobPod("llm", 1), jobPod("llm", 2)};
  auto plan =
      planTrainingJob({job("ml", "llm").replicas(2), Json(podGroup("ml", "llm")), true, pods, kT0});
  REQUIRE(plan.deletions.size() == 1);
  CHECK(plan.deletions[0].pod == "llm-2");
  CHECK(plan.create.empty());
}

TEST_CASE("an invalid job creates nothing and says which field breaks which rule",
          "[controllers][training-job]") {
  auto plan =
      planTrainingJob({job("ml", "bad").replicas(2).minReplicas(3), std::nullopt, false, {}, kT0});
  CHECK(plan.create.empty());
  REQUIRE(plan.status["conditions"].size() == 1);
  CHECK(plan.status["conditions"][0]["type"] == "Valid");
  CHECK(plan.status["conditions"][0]["status"] == "False");
  CHECK_THAT(plan.status["conditions"][0]["message"].get<std::string>(),
             Catch::Contains("spec.minReplicas"));
}

TEST_CASE("a job the scheduler finds can never be admitted gets a condition and one warning",
          "[controllers][training-job][inadmissible]") {
  const Json never = {{"reason", "Inadmissible"},
                      {"message",
                       "Inadmissible: it can never be admitted as the queues and "
                       "nodes are: even on an empty cluster team-a would hold 104 "
                       "of its limit 96 nvidia.com/gpu (this job asks 104)"}};
  Json pg = podGroup("ml", "llm");
  const std::vector<Json> pods = {jobPod("llm", 0), jobPod("llm", 1)};
  Json status = {{"phase", "Queued"}, {"pending", never}};
  auto plan =
      planTrainingJob({job("ml", "llm").replicas(2).status(status), pg, true, pods, kT0 + 60});
  CHECK(plan.status["phase"] == "Queued");
  const Json* c = findCondition(plan.status, "Inadmissible");
  REQUIRE(c != nullptr);
  CHECK((*c)["status"] == "True");
  CHECK((*c)["message"] == never["message"]);
  REQUIRE(plan.events.size() == 1);
  CHECK(plan.events[0].type == "Warning");
  CHECK(plan.events[0].reason == "Inadmissible");
  CHECK(plan.events[0].gang == "ml/llm");

  // Planned again on its own result: the condition stays, the warning is not repeated.
  auto again =
      planTrainingJob({job("ml", "llm").replicas(2).status(plan.status), pg, true, pods, kT0 + 70});
  CHECK(conditionIsTrue(again.status, "Inadmissible"));
  CHECK(again.events.empty());
  CHECK_FALSE(again.status_changed);

  // The queue's limit is raised: the scheduler now says something else, and so does the job.
  Json waiting = again.status;
  waiting["pending"] = {{"reason", "QueueAtLimit"}, {"message", "QueueAtLimit: ..."}};
  auto later =
      planTrainingJob({job("ml", "llm").replicas(2).status(waiting), pg, true, pods, kT0 + 80});
  REQUIRE(findCondition(later.status, "Inadmissible") != nullptr);
  CHECK_FALSE(conditionIsTrue(later.status, "Inadmissible"));
  CHECK(later.events.empty());
}
