#include "kube/transport.h"

#include <strings.h>

namespace troupe::kube {

std::string HttpResponse::header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (key.size() == name.size() && ::strncasecmp(key.data(), name.data(), name.size()) == 0) {
      return value;
    }
  }
  return {};
}

}  // namespace troupe::kube
