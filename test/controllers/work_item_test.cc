#include <catch2/catch.hpp>

#include "controllers/work_item.h"

namespace troupe::controllers {
namespace {

TEST_CASE("work items name the kind and the key of the object a reconcile brings to its spec",
          "[controllers][work-item]") {
  CHECK(trainingJobItem("ml/train") == "TrainingJob:ml/train");
  CHECK(podGroupItem("ml/train") == "PodGroup:ml/train");
  auto job = parseWorkItem(trainingJobItem("ml/train"));
  REQUIRE(job.has_value());
  CHECK(job->kind == WorkKind::TrainingJob);
  CHECK(job->key == "ml/train");
  auto group = parseWorkItem(podGroupItem("ml/g"));
  REQUIRE(group.has_value());
  CHECK(group->kind == WorkKind::PodGroup);
  CHECK(group->key == "ml/g");
  CHECK_FALSE(parseWorkItem("Queue:a").has_value());
  CHECK_FALSE(parseWorkItem("").has_value());
}

}  // namespace
}  // namespace troupe::controllers
