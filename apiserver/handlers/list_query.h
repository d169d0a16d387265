#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "apiserver/handlers/api_status.h"
#include "apiserver/handlers/rest_request.h"
#include "apiserver/handlers/selectors.h"

// What a list or watch selects: label and field selectors from the query string.
namespace troupe::apiserver {

class ListFilter {
 public:
  static ApiResult<ListFilter> fromRequest(const RestRequest& request);
  bool matches(const nlohmann::json& object) const;
  bool empty() const { return labels_.empty() && fields_.empty(); }

 private:
  LabelSelector labels_;
  FieldSelector fields_;
};

// Continue tokens: base64url of {"v":"meta.k8s.io/v1","rv":N,"start":"<ns>/<name>"}, as
// the real server shapes them (opaque to clients).
std::string encodeContinue(Revision revision, const std::string& ns, const std::string& name);
struct ContinuePoint {
  Revision revision = 0;  // -1: continue inconsistently at the current revision
  std::string ns, name;
};
std::optional<ContinuePoint> decodeContinue(const std::string& token);

}  // namespace troupe::apiserver
