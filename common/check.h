#pragma once

#include <fmt/format.h>

#include <string>

namespace troupe::detail {
[[noreturn]] void checkFailed(const char* file, int line, const char* condition,
                              const std::string& message);
}  // namespace troupe::detail

// TROUPE_CHECK(cond, "fmt", args...): a broken invariant stops the process loudly,
// with the numbers. Never used on user input: that gets an Error value instead.
#define TROUPE_CHECK(cond, ...)                                                             \
  do {                                                                                      \
    if (!(cond)) [[unlikely]] {                                                             \
      ::troupe::detail::checkFailed(__FILE__, __LINE__, #cond, ::fmt::format(__VA_ARGS__)); \
    }                                                                                       \
  } while (false)
