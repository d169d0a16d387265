#include "apiserver/storage/object_codec.h"

#include <fmt/format.h>

#include "common/check.h"

namespace troupe::apiserver {

Result<std::string> encodeObject(nlohmann::json& object) {
  if (!object.is_object()) {
    return makeError(ErrorCode::BadRequest, "",
                     fmt::format("object: must be a JSON object, not {}", object.type_name()));
  }
  auto metadata = object.find("metadata");
  if (metadata != object.end()) {
    if (!metadata->is_object()) {
      return makeError(ErrorCode::BadRequest, "metadata",
                       fmt::format("must be a JSON object, not {}", metadata->type_name()));
    }
    metadata->erase("resourceVersion");
  }
  return object.dump();
}

nlohmann::json decodeObject(std::string_view text, Revision revision) {
  auto object = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  TROUPE_CHECK(object.is_object(), "stored object at revision {} is not a JSON object: {:.80}",
               revision, text);
  stampRevision(object, revision);
  return object;
}

void stampRevision(nlohmann::json& object, Revision revision) {
  object["metadata"]["resourceVersion"] = std::to_string(revision);
}

}  // namespace troupe::apiserver
