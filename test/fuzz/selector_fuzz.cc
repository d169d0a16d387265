// libFuzzer harness: label and field selectors from a list's query string.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

#include "apiserver/handlers/selectors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace troupe::apiserver;
  static const nlohmann::json object = nlohmann::json::parse(R"({
    "metadata": {"name": "llama-a", "namespace": "team-a",
                 "labels": {"team": "nlp", "tier": "3", "app.kubernetes.io/name": "x"}},
    "spec": {"nodeName": "n1", "replicas": 4}, "status": {"phase": "Running"}})");
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (auto labels = LabelSelector::parse(text)) (void)labels->matches(object);
  if (auto fields = FieldSelector::parse(text)) (void)fields->matches(object);
  return 0;
}
