# Warnings are errors, everywhere in Troupe's own code.
add_compile_options(-Wall -Wextra -Wpedantic -Werror -Wno-missing-field-initializers)
