#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

#include "apiserver/storage/object_store.h"
#include "common/result.h"

// How an object is stored: its JSON text without metadata.resourceVersion, which is
// not part of the object's content but of where it sits in history (the row's
// revision). Reads put it back.
namespace troupe::apiserver {

// Checks that `object` is a JSON object (and metadata, when present, too), removes
// metadata.resourceVersion and returns the compact text to store. BadRequest otherwise.
Result<std::string> encodeObject(nlohmann::json& object);

// Parses text written by encodeObject and stamps metadata.resourceVersion.
nlohmann::json decodeObject(std::string_view text, Revision revision);

// Sets metadata.resourceVersion to the decimal revision, creating metadata if needed.
void stampRevision(nlohmann::json& object, Revision revision);

}  // namespace troupe::apiserver
