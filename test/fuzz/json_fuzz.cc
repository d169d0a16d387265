// libFuzzer harness: an untrusted JSON text, as a request body is read.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/check.h"
#include "common/json_parse.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = troupe::parseUntrustedJson(text);
  if (!parsed) return 0;
  // What was accepted is within the limit, dumps (valid UTF-8), and reads back the same.
  TROUPE_CHECK(!troupe::nestsDeeperThan(*parsed, troupe::kMaxJsonDepth), "too deep");
  const std::string dumped = parsed->dump();
  TROUPE_CHECK(troupe::compactJsonSize(*parsed, SIZE_MAX) == dumped.size(), "size {}",
               dumped.size());
  auto again = troupe::parseUntrustedJson(dumped);
  TROUPE_CHECK(again.ok() && *again == *parsed, "a dumped tree reads back differently");
  return 0;
}
