# Optional sanitizers for every target (AMDAHL_SANITIZE=address,undefined or thread).
if(AMDAHL_SANITIZE)
  message(STATUS "amdahl: building with -fsanitize=${AMDAHL_SANITIZE}")
  add_compile_options(-fsanitize=${AMDAHL_SANITIZE} -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=${AMDAHL_SANITIZE})
endif()
