#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <string>

#include "kubelet/gpu_holders.h"

using namespace troupe::kubelet;
using json = nlohmann::json;

namespace {

// A pod of namespace ml bound to GPU indices `indices`, asking `fraction` of one GPU when
// given.
json holder(const std::string& name, const std::string& indices, const std::string& fraction = "") {
  json p = {{"metadata", {{"name", name}, {"namespace", "ml"}}}};
  if (!indices.empty()) p["metadata"]["annotations"]["troupe.dev/gpu-indices"] = indices;
  if (!fraction.empty()) p["metadata"]["annotations"]["troupe.dev/gpu-fraction"] = fraction;
  return p;
}

}  // namespace

TEST_CASE("the node's GPU holders list each GPU's pods, fractions with their share",
          "[kubelet][gpu-holders]") {
  const json b = holder("nb-b", "0", "0.5");
  const json a = holder("nb-a", "0", "0.5");
  const json train = holder("train-0", "2,1");
  const json cpu_only = holder("etl", "");
  const json c = holder("nb-c", "3", "0.25");
  // By GPU index, the pods of one GPU by name, whatever order the pods come in.
  CHECK(gpuHolders({&b, &train, &cpu_only, &a, &c}) ==
        "0: ml/nb-a 0.5, ml/nb-b 0.5; 1: ml/train-0; 2: ml/train-0; 3: ml/nb-c 0.25");
  CHECK(gpuHolders({&cpu_only}).empty());
}

TEST_CASE("the node's GPU holders list the pods holding its MIG slices, with how many",
          "[kubelet][gpu-holders]") {
  // A pod asking two 1g.10gb slices in its limits (which stand for requests), another
  // asking one 3g.40gb in its requests, a CPU pod, and a half-GPU pod on index 0.
  json eval = holder("eval", "");
  eval["spec"]["containers"] = {
      {{"name", "c"}, {"resources", {{"limits", {{"nvidia.com/mig-1g.10gb", "2"}}}}}}};
  json infer = holder("infer", "");
  infer["spec"]["containers"] = {
      {{"name", "c"}, {"resources", {{"requests", {{"nvidia.com/mig-3g.40gb", 1}}}}}}};
  json etl = holder("etl", "");
  etl["spec"]["containers"] = {{{"name", "c"}, {"resources", {{"requests", {{"cpu", "4"}}}}}}};
  const json nb = holder("nb", "0", "0.25");
  // GPUs by index first, then slices by resource name.
  CHECK(gpuHolders({&infer, &etl, &eval, &nb}) ==
        "0: ml/nb 0.25; nvidia.com/mig-1g.10gb: ml/eval 2; nvidia.com/mig-3g.40gb: ml/infer 1");
  CHECK(gpuHolders({&etl}).empty());
}
