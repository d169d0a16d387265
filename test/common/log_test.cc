#include <catch2/catch.hpp>

#include "common/log.h"

namespace troupe {
namespace {

TEST_CASE("log levels parse from their names and reject anything else", "[common][log]") {
  CHECK(*log::parseLevel("debug") == log::Level::Debug);
  CHECK(*log::parseLevel("error") == log::Level::Error);
  auto bad = log::parseLevel("loud");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().field_path == "--log-level");
}

TEST_CASE("a level hides everything below it", "[common][log]") {
  log::setLevel(log::Level::Warn);
  CHECK_FALSE(log::enabled(log::Level::Info));
  CHECK(log::enabled(log::Level::Error));
  log::setLevel(log::Level::Off);
  CHECK_FALSE(log::enabled(log::Level::Error));
  log::setLevel(log::Level::Info);
}

}  // namespace
}  // namespace troupe
