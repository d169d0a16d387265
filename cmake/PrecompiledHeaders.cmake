# Precompiled headers for every Troupe target. nlohmann/json, fmt, spdlog and Catch2 are
# most of the compile time of a typical translation unit; parsing them once per target
# instead of once per file keeps the two CI builds (normal and sanitized) within budget
# on two cores. Headers are only added, never relied on: every file still includes
# what it uses (scripts/test's non-PCH check would catch a file that does not).
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
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if(NOT type MATCHES "^(STATIC_LIBRARY|SHARED_LIBRARY|OBJECT_LIBRARY|EXECUTABLE)$")
      continue()
    endif()
    get_target_property(sources ${target} SOURCES)
    list(FILTER sources INCLUDE REGEX "\\.cc$")
    list(LENGTH sources count)
    # A one- or two-file target gains nothing from a precompiled header.
    if(count LESS 3)
      continue()
    endif()
    set(headers ${TROUPE_PCH_COMMON})
    get_target_property(libs ${target} LINK_LIBRARIES)
    if(libs AND "troupe_catch_main" IN_LIST libs)
      list(APPEND headers <catch2/catch.hpp>)
    endif()
    target_precompile_headers(${target} PRIVATE ${headers})
  endforeach()
endfunction()
