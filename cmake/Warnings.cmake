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
