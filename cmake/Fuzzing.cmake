# libFuzzer targets (issue #8): AMDAHL_FUZZ=ON instruments every target for coverage with
# ASan+UBSan (-fsanitize=fuzzer-no-link) and builds the fuzz targets of tests/fuzz (linked with
# -fsanitize=fuzzer). Needs clang (CC=clang CXX=clang++); scripts/fuzz.sh configures it in its
# own build folder. The normal (GCC) build is unaffected: the option is OFF by default.
option(AMDAHL_FUZZ "Build the libFuzzer targets (clang only) with ASan+UBSan" OFF)

if(AMDAHL_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "AMDAHL_FUZZ needs clang (configure with CC=clang CXX=clang++), not ${CMAKE_CXX_COMPILER_ID}")
  endif()
  if(AMDAHL_SANITIZE)
    message(FATAL_ERROR "AMDAHL_FUZZ brings its own sanitizers: leave AMDAHL_SANITIZE empty")
  endif()
  message(STATUS "amdahl: building the fuzz targets (-fsanitize=fuzzer-no-link,address,undefined)")
  # UBSan findings abort (no recovery) so that libFuzzer records them as crashes.
  set(AMDAHL_FUZZ_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_compile_options(-fsanitize=fuzzer-no-link ${AMDAHL_FUZZ_FLAGS})
  add_link_options(-fsanitize=address,undefined)

  # amdahl_fuzz_target(NAME SOURCES... LIBS ...): one libFuzzer binary in bin/.
  function(amdahl_fuzz_target name)
    cmake_parse_arguments(F "" "" "SOURCES;LIBS" ${ARGN})
    add_executable(${name} ${F_SOURCES})
    target_link_libraries(${name} PRIVATE ${F_LIBS})
    target_link_options(${name} PRIVATE -fsanitize=fuzzer)
    amdahl_warnings(${name})
  endfunction()
endif()
