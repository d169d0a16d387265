#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "common/result.h"

// The protobuf wire format, read without a schema: one message's fields in the order they
// appear. Kubernetes clients (kubectl's typed `create` commands) send built-in objects this
// way; apiserver/protobuf/object_decoder.h gives the fields their names.
namespace troupe::apiserver::protobuf {

enum class WireType { Varint = 0, Fixed64 = 1, LengthDelimited = 2, Fixed32 = 5 };

struct WireField {
  int number = 0;
  WireType type = WireType::Varint;
  std::uint64_t varint = 0;  // Varint, Fixed64 and Fixed32 values
  std::string_view bytes;    // LengthDelimited: a view into the message read
};

// The fields of one message. A truncated message, a group (wire types 3 and 4) or a field
// number 0 is a BadRequest error naming the offset.
Result<std::vector<WireField>> readMessage(std::string_view message);

}  // namespace troupe::apiserver::protobuf
