#include <catch2/catch.hpp>

#include "controllers/lone_pod.h"
#include "test/controllers/builders.h"

using namespace troupe::controllers;
using namespace troupe::controllers::testing;

TEST_CASE("a Troupe pod without a PodGroup label is in a group of its own",
          "[controllers][lone-pod]") {
  struct Case {
    std::string name;
    Json pod;
    std::string want;
  };
  std::vector<Case> cases = {
      {"a pod naming its group joins it", pod("ml", "w-0").group("train"), "train"},
      {"a lone Troupe pod has its own, named by uid", pod("ml", "solo"), "pod-uid-solo"},
      {"a pod of another scheduler has none", pod("ml", "web").scheduler("default-scheduler"), ""},
      {"a pod of another scheduler has none, even labelled",
       pod("ml", "web").scheduler("default-scheduler").group("train"), ""},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) { CHECK(podGroupName(tc.pod) == tc.want); }
  }
}

TEST_CASE("a lone pod's PodGroup: one member, the pod's queue and priority, owned by the pod",
          "[controllers][lone-pod]") {
  Json p = pod("ml", "solo");
  p["metadata"]["labels"]["troupe.dev/queue"] = "team-a";
  p["spec"]["priorityClassName"] = "high";
  p.erase("kind");  // as a list item may come
  auto group = lonePodGroup(p);
  REQUIRE(group);
  CHECK((*group)["kind"] == "PodGroup");
  CHECK((*group)["metadata"]["name"] == "pod-uid-solo");
  CHECK((*group)["metadata"]["namespace"] == "ml");
  CHECK((*group)["spec"] ==
        Json{{"minMember", 1}, {"queue", "team-a"}, {"priorityClassName", "high"}});
  const auto& owner = (*group)["metadata"]["ownerReferences"][0];
  CHECK(owner["kind"] == "Pod");
  CHECK(owner["apiVersion"] == "v1");
  CHECK(owner["name"] == "solo");
  CHECK(owner["uid"] == "uid-solo");
}

TEST_CASE("a lone pod without a queue label gets an error naming the label",
          "[controllers][lone-pod]") {
  auto group = lonePodGroup(pod("ml", "solo"));
  REQUIRE_FALSE(group);
  CHECK(group.error().field_path == "metadata.labels[troupe.dev/queue]");
  CHECK_THAT(group.error().message, Catch::Contains("Required value"));
}
