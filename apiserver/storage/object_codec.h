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

// The text of decodeObject(text, revision), written by nlohmann::json::dump(), without
// parsing and dumping: `text` is what encodeObject wrote (compact, keys sorted), so the
// resourceVersion member is spliced into metadata at the place dump() would sort it to.
// Watch streams and write answers send this text to every client, and splicing costs a
// scan of the few members before it where a dump costs a walk of the whole tree.
// Empty when `text` is not in that form (the caller then dumps the parsed object).
std::string stampRevisionText(std::string_view text, Revision revision);

// stampRevisionText, or for text in another form the dump of decodeObject: the text of
// the stamped object either way.
std::string revisionText(std::string_view text, Revision revision);

}  // namespace troupe::apiserver
