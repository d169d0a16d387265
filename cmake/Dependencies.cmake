# Every dependency is a Debian package installed by scripts/bootstrap.
find_package(Threads REQUIRED)
find_package(Boost 1.74 REQUIRED)            # Asio, Beast, Graph: header-only here
find_package(nlohmann_json 3.11 REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(SQLite3 REQUIRED)
find_package(fmt REQUIRED)
find_package(spdlog REQUIRED)
find_package(CLI11 REQUIRED)
find_package(OpenSSL REQUIRED)
if(TROUPE_BUILD_TESTS)
  find_package(Catch2 2 REQUIRED)
endif()
# Beast and Asio are header-only; these definitions keep their build lean and their
# deprecated interfaces out.
add_compile_definitions(BOOST_ASIO_NO_DEPRECATED BOOST_BEAST_USE_STD_STRING_VIEW)
