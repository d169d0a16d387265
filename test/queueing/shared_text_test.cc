#include "queueing/shared_text.h"

#include <catch2/catch.hpp>
#include <string>

namespace troupe::queueing {
namespace {

TEST_CASE("a shared text compares by its content, whether shared or not") {
  const SharedText a(std::string("preempting every gang it may preempt would still not make room"));
  const SharedText copy = a;  // the same text, shared
  const SharedText b(std::string("preempting every gang it may preempt would still not make room"));
  const SharedText other(std::string("queue q would end above its fair share"));
  CHECK(copy == a);
  CHECK(&copy.str() == &a.str());  // shared, not copied
  CHECK(b == a);                   // another copy of the same words
  CHECK_FALSE(other == a);
  CHECK(a.str() == "preempting every gang it may preempt would still not make room");

  const SharedText none;
  const SharedText empty_string(std::string{});
  CHECK(none.empty());
  CHECK(empty_string.empty());
  CHECK(none == empty_string);
  CHECK(none.str().empty());
  CHECK_FALSE(none == a);
}

}  // namespace
}  // namespace troupe::queueing
