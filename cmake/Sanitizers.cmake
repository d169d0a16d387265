if(TROUPE_SANITIZE)
  set(TROUPE_SANITIZER_FLAGS -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_compile_options(${TROUPE_SANITIZER_FLAGS})
  add_link_options(${TROUPE_SANITIZER_FLAGS})
  # Boost.Asio's coroutines and Beast trip GCC 12's -Wmaybe-uninitialized under ASan.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    add_compile_options(-Wno-maybe-uninitialized)
  endif()
endif()
