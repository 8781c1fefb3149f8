# libamdahl_collector.so: the NVTX injection library and the collector core (thread-local
# record buffers, interning, diagnostics, part writer). No CUDA, SQLite or spdlog: it is
# loaded into arbitrary processes through NVTX_INJECTION64_PATH. Only the C entry point and
# the collector_core.hpp functions are exported.
if(NOT AMDAHL_HAVE_NVTX)
  message(STATUS "amdahl: NVTX headers not found; skipping libamdahl_collector.so")
  return()
endif()

add_library(amdahl_collector SHARED
  ${CMAKE_CURRENT_LIST_DIR}/src/collector_core.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/collector_config.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/collector_fork.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/recording.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/string_table.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/thread_registry.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/part_writer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/background_thread.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/flusher.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/prefaulter.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/crash_handler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/nvtx_injection.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/proc_info.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/tsc_clock.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/spill_file.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/wide_text.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/log.cpp)
target_include_directories(amdahl_collector PUBLIC ${CMAKE_CURRENT_LIST_DIR}/src)
target_link_libraries(amdahl_collector
  PUBLIC amdahl_format
  PRIVATE amdahl_nvtx3 amdahl_profile_options Threads::Threads)
set_target_properties(amdahl_collector PROPERTIES
  OUTPUT_NAME amdahl_collector
  NO_SONAME OFF
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON)
# The SONAME is the unversioned file name (no VERSION/SOVERSION properties on purpose).
# Symbols from the static amdahl_format archive stay inside the library.
target_link_options(amdahl_collector PRIVATE -Wl,--exclude-libs,ALL -Wl,--no-undefined
  -Wl,--version-script=${CMAKE_CURRENT_LIST_DIR}/src/collector_exports.map)
set_property(TARGET amdahl_collector APPEND PROPERTY LINK_DEPENDS
  ${CMAKE_CURRENT_LIST_DIR}/src/collector_exports.map)
amdahl_warnings(amdahl_collector)
# TLS descriptors (x86-64): each NVTX call reads the thread's state from a thread_local. In a
# dlopen()ed library the default dialect calls __tls_get_addr (~20 instructions a push/pop pair
# in callgrind); with descriptors glibc puts the block in static TLS where it has room (then a
# read is two instructions) and falls back to the dynamic path where it has not, so loading
# never fails. Not under the sanitizers, whose TLS bookkeeping expects __tls_get_addr.
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64" AND NOT AMDAHL_SANITIZE)
  target_compile_options(amdahl_collector PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-mtls-dialect=gnu2>)
endif()
target_link_libraries(amdahl_collector PRIVATE ${CMAKE_DL_LIBS})

# libamdahl_exit.so: the _exit and exec hooks `amdahl profile` preloads (src/exit_hook.c). Plain C, libc
# only. Not under sanitizers or the fuzz build: an uninstrumented preload breaks ASan's check that
# its runtime comes first, an instrumented one breaks uninstrumented hosts (python3).
if(NOT AMDAHL_SANITIZE AND NOT AMDAHL_FUZZ)
  add_library(amdahl_exit SHARED ${CMAKE_CURRENT_LIST_DIR}/src/exit_hook.c)
  set_target_properties(amdahl_exit PROPERTIES OUTPUT_NAME amdahl_exit C_VISIBILITY_PRESET hidden)
  target_link_options(amdahl_exit PRIVATE -Wl,--no-undefined)
  target_link_libraries(amdahl_exit PRIVATE ${CMAKE_DL_LIBS})  # dlsym(RTLD_NEXT) of the exec functions
  add_dependencies(amdahl_collector amdahl_exit)  # `amdahl profile` preloads it when present
endif()

# Installed next to bin/amdahl as <prefix>/lib, where `amdahl profile` looks (<bindir>/../lib):
# the same layout as the build tree, so the plain `lib` (not GNUInstallDirs' lib64 or multiarch).
install(TARGETS amdahl_collector LIBRARY DESTINATION lib)
if(TARGET amdahl_exit)
  install(TARGETS amdahl_exit LIBRARY DESTINATION lib)
endif()
