#include <catch2/catch.hpp>

#include "controllers/merge_patch.h"

namespace troupe::controllers {
namespace {

using Json = nlohmann::json;

TEST_CASE("a merge patch carries what changed, nulls what went and nothing else",
          "[controllers][merge-patch]") {
  const Json from = {{"phase", "Pending"},
                     {"pending", {{"reason", "QuotaExceeded"}, {"queue", "a"}}},
                     {"conditions", Json::array({{{"type", "Valid"}}})},
                     {"restarts", 1}};
  const Json to = {{"phase", "Running"},
                   {"pending", {{"queue", "a"}}},
                   {"conditions", Json::array({{{"type", "Valid"}}, {{"type", "Ready"}}})},
                   {"restarts", 1},
                   {"startedAt", "2026-11-23T02:01:36Z"}};
  const Json want = {{"phase", "Running"},
                     {"pending", {{"reason", nullptr}}},
                     {"conditions", Json::array({{{"type", "Valid"}}, {{"type", "Ready"}}})},
                     {"startedAt", "2026-11-23T02:01:36Z"}};
  CHECK(mergePatch(from, to) == want);
  CHECK(mergePatch(from, from) == Json::object());
  // Not an object on either side: the new document replaces the old.
  CHECK(mergePatch(Json("a"), to) == to);
}

}  // namespace
}  // namespace troupe::controllers
