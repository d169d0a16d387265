#pragma once

#include <nlohmann/json.hpp>

// RFC 7386 merge patches computed from two versions of a document.
namespace troupe::controllers {

// The merge patch that turns `from` into `to`: keys `to` lacks become null (a merge patch
// of the new object alone would keep them), objects recurse, the rest replaces.
nlohmann::json mergePatch(const nlohmann::json& from, const nlohmann::json& to);

}  // namespace troupe::controllers
