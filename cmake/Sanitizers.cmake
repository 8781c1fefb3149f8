# Optional sanitizers for every target (AMDAHL_SANITIZE=address,undefined or thread).
if(AMDAHL_SANITIZE)
  message(STATUS "amdahl: building with -fsanitize=${AMDAHL_SANITIZE}")
  add_compile_options(-fsanitize=${AMDAHL_SANITIZE} -fno-omit-frame-pointer)
  # Line tables for the sanitizers' stack traces: -g1 is enough for file:line in a report, and
  # an ASan+UBSan compile with full -g takes about 1.5 times as long. Debug and RelWithDebInfo
  # bring their own -g level (scripts/test-sanitizers.sh sets RelWithDebInfo to -O1 -g1).
  if(NOT CMAKE_BUILD_TYPE MATCHES "Deb")
    add_compile_options(-g1)
  endif()
  add_link_options(-fsanitize=${AMDAHL_SANITIZE})
  # GCC 12 reports false maybe-uninitialized warnings in libstdc++ under sanitizers.
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-Wno-maybe-uninitialized>)
endif()
