#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "kubelet/pod_admission.h"

using namespace troupe::kubelet;
using json = nlohmann::json;

namespace {

json gpuNode(int gpus) {
  return {{"metadata", {{"name", "n1"}}},
          {"status",
           {{"allocatable",
             {{"nvidia.com/gpu", std::to_string(gpus)},
              {"cpu", "8"},
              {"memory", "64Gi"},
              {"pods", "110"}}}}}};
}

// A pod asking for `gpus` GPUs (as a limit, the way GPUs are asked for) and `cpu`, bound
// to the GPU indices `indices` ("" for none).
json pod(const std::string& name, int gpus, const std::string& indices,
         const std::string& cpu = "1") {
  json p = {{"metadata", {{"name", name}, {"namespace", "ml"}}},
            {"spec",
             {{"nodeName", "n1"},
              {"containers",
               {{{"name", "main"},
                 {"resources",
                  {{"requests", {{"cpu", cpu}}},
                   {"limits", {{"nvidia.com/gpu", std::to_string(gpus)}}}}}}}}}}};
  if (!indices.empty()) p["metadata"]["annotations"]["troupe.dev/gpu-indices"] = indices;
  return p;
}

// A pod asking `fraction` of one GPU (troupe.dev/gpu-fraction) and no whole GPU, bound to
// GPU `index`.
json fractionPod(const std::string& name, const std::string& fraction, const std::string& index) {
  json p = pod(name, 0, index);
  p["spec"]["containers"][0]["resources"]["limits"] = json::object();
  p["metadata"]["annotations"]["troupe.dev/gpu-fraction"] = fraction;
  return p;
}

}  // namespace

TEST_CASE("a kubelet admits a pod only beside what its other pods hold", "[kubelet][admission]") {
  struct Case {
    const char* name;
    json pod;
    std::vector<json> admitted;
    const char* want_reason;  // "" when admitted
    const char* want_in_message;
  };
  const std::vector<Case> cases = {
      {"on free GPUs beside a pod", pod("new", 4, "4,5,6,7"), {pod("old", 4, "0,1,2,3")}, "", ""},
      {"on a GPU another pod holds",
       pod("new", 4, "2,3,4,5"),
       {pod("old", 4, "0,1,2,3")},
       "UnexpectedAdmissionError",
       "GPU 2 of node n1 being held by pod ml/old"},
      {"on a GPU the node does not have",
       pod("new", 1, "8"),
       {},
       "UnexpectedAdmissionError",
       "GPU 8 not being one of the 8 of node n1"},
      // 4 + 4 + 4 GPUs asked of 8, whatever indices they list (or none).
      {"past the node's GPUs",
       pod("new", 4, ""),
       {pod("a", 4, "0,1,2,3"), pod("b", 4, "")},
       "OutOfnvidia.com/gpu",
       "requested: 4, used: 8, capacity: 8"},
      // 3 cores + 3 + 3 of 8, in millicores.
      {"past the node's CPU",
       pod("new", 0, "", "3"),
       {pod("a", 0, "", "3"), pod("b", 0, "", "3")},
       "OutOfcpu",
       "requested: 3000, used: 6000, capacity: 8000"},
      {"alone on an empty node", pod("new", 8, "0,1,2,3,4,5,6,7"), {}, "", ""},
      // 0.5 + 0.5 = 1: two halves share GPU 0.
      {"half a GPU beside another half",
       fractionPod("new", "0.5", "0"),
       {fractionPod("a", "0.5", "0")},
       "",
       ""},
      // 0.5 + 0.3 + 0.3 = 1.1 > 1.
      {"a share past the whole GPU",
       fractionPod("new", "0.3", "0"),
       {fractionPod("a", "0.5", "0"), fractionPod("b", "0.3", "0")},
       "UnexpectedAdmissionError",
       "GPU 0 of node n1 being shared past the whole: 800 thousandths held, 300 asked"},
      {"a share of a GPU a pod holds whole",
       fractionPod("new", "0.5", "1"),
       {pod("old", 2, "0,1")},
       "UnexpectedAdmissionError",
       "GPU 1 of node n1 being held by pod ml/old"},
      {"a whole GPU a share holds",
       pod("new", 1, "3"),
       {fractionPod("a", "0.25", "3")},
       "UnexpectedAdmissionError",
       "GPU 3 of node n1 being held by pod ml/a"},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      std::vector<const json*> admitted;
      for (const auto& p : tc.admitted) admitted.push_back(&p);
      auto refusal = refuseAdmission(tc.pod, gpuNode(8), admitted);
      if (std::string(tc.want_reason).empty()) {
        CHECK_FALSE(refusal.has_value());
      } else {
        REQUIRE(refusal.has_value());
        CHECK(refusal->reason == tc.want_reason);
        CHECK_THAT(refusal->message, Catch::Contains(tc.want_in_message));
      }
    }
  }
}
