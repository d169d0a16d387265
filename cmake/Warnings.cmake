# Warnings are errors, everywhere in Troupe's own code.
add_compile_options(-Wall -Wextra -Wpedantic -Werror -Wno-missing-field-initializers)
# GCC 12 at -O2 reports -Wrestrict inside libstdc++'s own std::string code (GCC bug
# 105651, fixed in GCC 13): a false positive in the standard library, not in Troupe.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  add_compile_options(-Wno-restrict)
endif()
