// libFuzzer harness: a CEL rule of a CRD's x-kubernetes-validations, compiled and run.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "openapi/cel.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const nlohmann::json self = nlohmann::json::parse(R"({
    "replicas": 4, "minReplicas": 2, "queue": "team-a", "ratio": 0.5, "suspend": false,
    "tags": ["a", "b"], "limits": {"cpu": "8", "nvidia.com/gpu": 8}, "none": null})");
  static const nlohmann::json old_self = nlohmann::json::parse(R"({"replicas": 2})");
  const std::string_view rule(reinterpret_cast<const char*>(data), size);
  auto program = troupe::openapi::CelProgram::compile(rule);
  if (!program) return 0;
  (void)program->evaluate(self, &old_self);
  (void)program->evaluate(self, nullptr);
  return 0;
}
