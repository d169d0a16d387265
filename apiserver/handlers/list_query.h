#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "apiserver/handlers/rest_request.h"
#include "apiserver/handlers/selectors.h"
#include "apiserver/objects/api_status.h"
#include "apiserver/storage/object_store.h"

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

// An integer query parameter (`limit`, `timeoutSeconds`): nullopt when absent, a 400 when
// it is not a 64-bit integer, as the real server's parameter decoding answers.
ApiResult<std::optional<std::int64_t>> integerParam(const RestRequest& request, const char* name);

// `resourceVersion`: nullopt when absent or empty, else a revision; a 400 when it is not one.
ApiResult<std::optional<Revision>> resourceVersionParam(const RestRequest& request);

// A list's `resourceVersionMatch`, checked as the real server checks ListOptions (422 with
// kind ListOptions): it needs a resourceVersion, no continue token, one of Exact or
// NotOlderThan, and Exact not with "0".
std::optional<ApiError> checkResourceVersionMatch(const RestRequest& request);

// The real server's answer for a read at a revision it has not reached: 504 Timeout with
// cause ResourceVersionTooLarge (client-go waits and retries on it).
ApiError tooLargeResourceVersion(Revision wanted, Revision current);

// Continue tokens: base64url of {"v":"meta.k8s.io/v1","rv":N,"start":"<ns>/<name>"}, as
// the real server shapes them (opaque to clients).
std::string encodeContinue(Revision revision, const std::string& ns, const std::string& name);
struct ContinuePoint {
  Revision revision = 0;  // -1: continue inconsistently at the current revision
  std::string ns, name;
};
std::optional<ContinuePoint> decodeContinue(const std::string& token);

}  // namespace troupe::apiserver
