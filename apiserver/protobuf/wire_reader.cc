#include "apiserver/protobuf/wire_reader.h"

#include <fmt/format.h>

namespace troupe::apiserver::protobuf {

namespace {

Error malformed(std::size_t offset, const char* what) {
  return Error{ErrorCode::BadRequest, "",
               fmt::format("malformed protobuf at byte {}: {}", offset, what)};
}

// A base-128 varint of at most ten bytes.
bool readVarint(std::string_view in, std::size_t& pos, std::uint64_t& value) {
  value = 0;
  for (int shift = 0; shift < 70 && pos < in.size(); shift += 7) {
    auto byte = static_cast<unsigned char>(in[pos++]);
    value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

bool readFixed(std::string_view in, std::size_t& pos, int width, std::uint64_t& value) {
  if (in.size() - pos < static_cast<std::size_t>(width)) return false;
  value = 0;
  for (int i = 0; i < width; ++i)
    value |= static_cast<std::uint64_t>(static_cast<unsigned char>(in[pos++])) << (8 * i);
  return true;
}

}  // namespace

Result<std::vector<WireField>> readMessage(std::string_view message) {
  std::vector<WireField> fields;
  std::size_t pos = 0;
  while (pos < message.size()) {
    const std::size_t start = pos;
    std::uint64_t key = 0;
    if (!readVarint(message, pos, key)) return malformed(start, "truncated field key");
    WireField field;
    field.number = static_cast<int>(key >> 3);
    if (field.number <= 0) return malformed(start, "field number 0");
    switch (key & 7) {
      case 0:
        field.type = WireType::Varint;
        if (!readVarint(message, pos, field.varint)) return malformed(start, "truncated varint");
        break;
      case 1:
        field.type = WireType::Fixed64;
        if (!readFixed(message, pos, 8, field.varint)) return malformed(start, "truncated fixed64");
        break;
      case 2: {
        field.type = WireType::LengthDelimited;
        std::uint64_t length = 0;
        if (!readVarint(message, pos, length) || length > message.size() - pos)
          return malformed(start, "length past the end of the message");
        field.bytes = message.substr(pos, length);
        pos += length;
        break;
      }
      case 5:
        field.type = WireType::Fixed32;
        if (!readFixed(message, pos, 4, field.varint)) return malformed(start, "truncated fixed32");
        break;
      default: return malformed(start, "unsupported wire type (groups are not used by Kubernetes)");
    }
    fields.push_back(field);
  }
  return fields;
}

}  // namespace troupe::apiserver::protobuf
