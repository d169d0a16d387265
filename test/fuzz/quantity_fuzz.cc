// libFuzzer harness: a resource quantity ("500m", "64Gi", "1e3") as a client writes one.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "api/quantity.h"
#include "common/check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using troupe::api::Quantity;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto q = Quantity::parse(text, "spec.resources[cpu]");
  if (!q) return 0;
  // The canonical form reads back as the same amount.
  auto again = Quantity::parse(q->toString());
  TROUPE_CHECK(again.ok() && *again == *q, "{} printed as {} reads back differently",
               std::string(text), q->toString());
  // Arithmetic reports overflow rather than wrapping (UBSan would catch a wrap).
  (void)q->plus(*q);
  (void)q->minus(Quantity::fromMilli(-q->milliValue()));
  (void)q->times(1000);
  (void)q->value();
  return 0;
}
