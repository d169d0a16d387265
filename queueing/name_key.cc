#include "queueing/name_key.h"

namespace troupe::queueing {

NameKey nameKey(const std::string& name) {
  auto word = [&](std::size_t from) {
    std::uint64_t w = 0;
    for (std::size_t i = from; i < from + 8; ++i)
      w = (w << 8) | (i < name.size() ? static_cast<unsigned char>(name[i]) : 0u);
    return w;
  };
  return NameKey{word(0), word(8)};
}

}  // namespace troupe::queueing
