# Warnings are errors, everywhere in Troupe's own code.
add_compile_options(-Wall -Wextra -Wpedantic -Werror -Wno-missing-field-initializers)
# GCC 12 at -O2 reports -Wrestrict, -Warray-bounds, -Wstringop-overflow and -overread inside
# libstdc++'s own std::string code (char_traits.h memcpy after inlining; GCC bugs
# 105651, 105329, 106199, fixed in GCC 13): false positives in the standard library that
# depend on inlining decisions, not on Troupe's code.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  add_compile_options(-Wno-restrict -Wno-array-bounds -Wno-stringop-overflow
                      -Wno-stringop-overread)
endif()
# A unity build (scripts/test) #includes each source file into a batch, and GCC reports
# -Wsubobject-linkage for a type with a member of an anonymous-namespace type in any file
# that is #included, as if it were a header; in a source file that is legitimate. The
# warning stays on for every other build, where it watches the real headers.
if(CMAKE_UNITY_BUILD AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  add_compile_options(-Wno-subobject-linkage)
endif()
