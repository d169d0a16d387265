#include <catch2/catch.hpp>

#include <pthread.h>

#include <string>
#include <thread>

#include "common/thread_name.h"

namespace {

std::string nameOf(pthread_t thread) {
  char name[64] = {0};
  REQUIRE(pthread_getname_np(thread, name, sizeof(name)) == 0);
  return name;
}

}  // namespace

TEST_CASE("a thread names itself, cut to the 15 characters Linux keeps", "[common][thread]") {
  std::string short_name, long_name;
  std::thread([&] {
    troupe::nameThisThread("api-handler");
    short_name = nameOf(pthread_self());
    troupe::nameThisThread("inf-priorityclasses");
    long_name = nameOf(pthread_self());
  }).join();
  CHECK(short_name == "api-handler");
  CHECK(long_name == "inf-prioritycla");
}
