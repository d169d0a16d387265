// libFuzzer harness: a protobuf request body (kubectl's typed create commands send one).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "apiserver/protobuf/object_decoder.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  auto object = troupe::apiserver::protobuf::decodeObject(body);
  if (object) (void)object->dump();  // throws on bytes that are not UTF-8
  return 0;
}
