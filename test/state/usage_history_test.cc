#include <catch2/catch.hpp>

#include "state/usage_history.h"
#include "test/state/state_fixture.h"

using namespace troupe::state;
using troupe::state::testing::openDatabase;
using troupe::state::testing::TempDir;

TEST_CASE("usage history survives a reopen and a later save replaces the earlier",
          "[state][usage]") {
  TempDir dir;
  {
    auto db = openDatabase(dir.path());
    UsageHistory history(*db);
    REQUIRE(history.save("team-a", {{{"nvidia.com/gpu", 6}, {"cpu", 48000}}, 100}).ok());
    REQUIRE(history.save("team-b", {{{"nvidia.com/gpu", 2}}, 100}).ok());
    REQUIRE(history.save("team-a", {{{"nvidia.com/gpu", 7}}, 160}).ok());
  }
  auto db = openDatabase(dir.path());
  UsageHistory history(*db);
  auto loaded = history.load();
  REQUIRE(loaded.ok());
  REQUIRE(loaded->size() == 2);
  CHECK(loaded->at("team-a") == QueueUsage{{{"nvidia.com/gpu", 7}}, 160});
  CHECK(loaded->at("team-b") == QueueUsage{{{"nvidia.com/gpu", 2}}, 100});
  REQUIRE(history.forget("team-b").ok());
  CHECK(history.load()->size() == 1);
}

TEST_CASE("the usage annotation round-trips and the newer copy wins", "[state][usage]") {
  QueueUsage local{{{"nvidia.com/gpu", 4}}, 100};
  QueueUsage mirrored{{{"nvidia.com/gpu", 9}, {"memory", 1 << 30}}, 200};
  auto decoded = decodeUsageAnnotation(encodeUsageAnnotation(mirrored));
  REQUIRE(decoded.ok());
  CHECK(*decoded == mirrored);
  // A new leader on another machine has an empty local copy (at 0): the mirror wins.
  CHECK(newerOf(QueueUsage{}, mirrored) == mirrored);
  CHECK(newerOf(local, mirrored) == mirrored);
  CHECK(newerOf(mirrored, local) == mirrored);
  // On a tie the local copy is kept.
  CHECK(&newerOf(local, QueueUsage{{}, 100}) == &local);
}

TEST_CASE("a damaged usage annotation is an error naming the annotation", "[state][usage]") {
  struct Case {
    std::string name;
    std::string text;
    std::string want_message;
  };
  std::vector<Case> cases = {
      {"not JSON", "{oops", "must be a JSON object"},
      {"no timestamp", R"({"usage":{}})", "must be a JSON object"},
      {"usage not an object", R"({"at":1,"usage":[1]})", "usage must be an object"},
      {"fractional usage", R"({"at":1,"usage":{"cpu":1.5}})", "usage of cpu must be an integer"},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto decoded = decodeUsageAnnotation(tc.text);
      REQUIRE_FALSE(decoded.ok());
      CHECK(decoded.error().field_path == "metadata.annotations[troupe.dev/decayed-usage]");
      CHECK_THAT(decoded.error().message, Catch::Contains(tc.want_message));
    }
  }
}
