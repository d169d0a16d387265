// libFuzzer harness: an untrusted YAML body (application/yaml), as the server reads it.
#include <cstddef>
#include <cstdint>
#include <string>

#include "apiserver/handlers/yaml_json.h"
#include "common/check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  // A small size limit, so that the fuzzer reaches it often.
  const troupe::apiserver::YamlLimits limits{troupe::apiserver::kMaxYamlDepth, 64 * 1024};
  auto docs = troupe::apiserver::yamlDocumentsToJson(text, limits);
  if (!docs) return 0;
  for (const auto& doc : *docs) {
    TROUPE_CHECK(!troupe::nestsDeeperThan(doc, limits.max_depth), "too deep");
    // The decoded size is charged before the tree is built: what was accepted is within it.
    const std::string dumped = doc.dump();  // throws on bytes that are not UTF-8
    TROUPE_CHECK(dumped.size() <= limits.max_bytes, "{} bytes decoded", dumped.size());
  }
  return 0;
}
