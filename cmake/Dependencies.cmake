# Every dependency is a Debian package installed by scripts/bootstrap.
find_package(Threads REQUIRED)
find_package(Boost 1.74 REQUIRED)            # Asio, Beast, Graph: header-only here
find_package(nlohmann_json 3.11 REQUIRED)
find_package(simdjson 3 REQUIRED)             # the fast path of parseJson (common/)
find_package(yaml-cpp REQUIRED)
find_package(SQLite3 REQUIRED)
find_package(fmt REQUIRED)
find_package(spdlog REQUIRED)
find_package(CLI11 REQUIRED)
find_package(OpenSSL REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(JEMALLOC REQUIRED IMPORTED_TARGET jemalloc)
if(TROUPE_BUILD_TESTS)
  find_package(Catch2 2 REQUIRED)
endif()
# Beast and Asio are header-only; these definitions keep their build lean and their
# deprecated interfaces out.
add_compile_definitions(BOOST_ASIO_NO_DEPRECATED BOOST_BEAST_USE_STD_STRING_VIEW)

# The allocator of Troupe's executables: jemalloc, as DuckDB and Redis ship with. With
# glibc's malloc, a busy `troupe serve` (thousands of JSON documents made and freed a
# second on some 40 threads) spent a third of its CPU in malloc and free, much of it in
# malloc_consolidate walking the fast bins, and the scheduling cycle waited behind it.
# Sanitizer builds keep their own allocator, which is how AddressSanitizer sees the heap.
add_library(troupe_allocator INTERFACE)
if(NOT TROUPE_SANITIZE)
  target_link_libraries(troupe_allocator INTERFACE PkgConfig::JEMALLOC)
endif()
