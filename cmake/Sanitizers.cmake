# Optional sanitizers for every target (AMDAHL_SANITIZE=address,undefined or thread).
if(AMDAHL_SANITIZE)
  message(STATUS "amdahl: building with -fsanitize=${AMDAHL_SANITIZE}")
  add_compile_options(-fsanitize=${AMDAHL_SANITIZE} -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=${AMDAHL_SANITIZE})
  # GCC 12 reports false maybe-uninitialized warnings in libstdc++ under sanitizers.
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-Wno-maybe-uninitialized>)
endif()
