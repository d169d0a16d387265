# Precompiled headers for every Troupe target. nlohmann/json, fmt and Catch2 are most of
# the compile time of a typical translation unit. Two targets own a precompiled header (one
# for the code, one that adds Catch2 for the tests) and every other target reuses theirs:
# a header compiled per target cost 5 to 7 seconds each, 150 seconds a build, over 30
# targets. Headers are only added, never relied on: every file still includes what it uses.
# CMake compiles with -Winvalid-pch, so with -Werror a target whose flags make the shared
# header unusable fails to build instead of silently parsing everything again.
option(TROUPE_PCH "Use precompiled headers" ON)

set(TROUPE_PCH_COMMON
    <algorithm> <chrono> <cstdint> <functional> <map> <memory> <mutex> <optional>
    <string> <string_view> <unordered_map> <utility> <vector>
    <fmt/format.h> <nlohmann/json.hpp>)

function(_troupe_collect_targets dir out)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    _troupe_collect_targets(${sub} sub_targets)
    list(APPEND targets ${sub_targets})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

# Call once, at the end of the top-level CMakeLists.txt, after every target exists.
function(troupe_apply_precompiled_headers)
  if(NOT TROUPE_PCH)
    return()
  endif()
  _troupe_collect_targets(${PROJECT_SOURCE_DIR} targets)

  # The owners link fmt and nlohmann/json as their users do (below), so the macros those
  # libraries define (FMT_SHARED) match and the header is valid for every target.
  add_library(troupe_pch OBJECT ${PROJECT_SOURCE_DIR}/cmake/pch_anchor.cc)
  target_link_libraries(troupe_pch PRIVATE fmt::fmt nlohmann_json::nlohmann_json)
  target_precompile_headers(troupe_pch PRIVATE ${TROUPE_PCH_COMMON})
  if(TARGET troupe_catch_main)
    add_library(troupe_pch_tests OBJECT ${PROJECT_SOURCE_DIR}/cmake/pch_anchor.cc)
    # Linking the Catch2 main gives it the tests' compile options (test/CMakeLists.txt).
    target_link_libraries(troupe_pch_tests PRIVATE fmt::fmt nlohmann_json::nlohmann_json
                                                   troupe_catch_main)
    target_precompile_headers(troupe_pch_tests PRIVATE ${TROUPE_PCH_COMMON}
                              <catch2/catch.hpp>)
  endif()
  # Clang takes a precompiled header only into code compiled with the same coverage
  # instrumentation, so the fuzz harnesses (test/fuzz/) have an owner compiled as they are.
  set(fuzz_option -fsanitize=fuzzer-no-link)
  if(TROUPE_FUZZ)
    add_library(troupe_pch_fuzz OBJECT ${PROJECT_SOURCE_DIR}/cmake/pch_anchor.cc)
    target_compile_options(troupe_pch_fuzz PRIVATE ${fuzz_option})
    target_link_libraries(troupe_pch_fuzz PRIVATE fmt::fmt nlohmann_json::nlohmann_json)
    target_precompile_headers(troupe_pch_fuzz PRIVATE ${TROUPE_PCH_COMMON})
  endif()

  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if(NOT type MATCHES "^(STATIC_LIBRARY|SHARED_LIBRARY|OBJECT_LIBRARY|EXECUTABLE)$")
      continue()
    endif()
    get_target_property(sources ${target} SOURCES)
    list(FILTER sources INCLUDE REGEX "\\.cc$")
    # catch_main defines CATCH_CONFIG_MAIN before its include; a header included ahead of
    # it would leave the test runner's main() out, so it has none.
    if(NOT sources OR target STREQUAL "troupe_catch_main")
      continue()
    endif()
    # Every target compiled with the shared header links what it includes, so that the
    # macros fmt defines for its users are defined alike everywhere.
    target_link_libraries(${target} PRIVATE fmt::fmt nlohmann_json::nlohmann_json)
    get_target_property(libs ${target} LINK_LIBRARIES)
    get_target_property(options ${target} COMPILE_OPTIONS)
    if(libs AND "troupe_catch_main" IN_LIST libs)
      target_precompile_headers(${target} REUSE_FROM troupe_pch_tests)
    elseif(options AND fuzz_option IN_LIST options)
      target_precompile_headers(${target} REUSE_FROM troupe_pch_fuzz)
    else()
      target_precompile_headers(${target} REUSE_FROM troupe_pch)
    endif()
  endforeach()
endfunction()
