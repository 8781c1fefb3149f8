# Writes the `amdahl --version` build information (cli/src/build_info.hpp.in -> OUT): the
# project version and the git commit of SRC_DIR when it is a git checkout with git installed
# ("unknown" otherwise, e.g. a release tarball). Run at every build (cmake -P, from the
# amdahl_build_info target); configure_file rewrites OUT only when its text changes, so a build
# with no new commit recompiles nothing.
#   cmake -DSRC_DIR=... -DIN=... -DOUT=... -DAMDAHL_VERSION=... -P BuildInfo.cmake
set(AMDAHL_GIT_COMMIT "unknown")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND "${GIT_EXECUTABLE}" rev-parse --short=12 HEAD
                  WORKING_DIRECTORY "${SRC_DIR}" OUTPUT_VARIABLE commit ERROR_QUIET
                  RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(rc EQUAL 0 AND commit MATCHES "^[0-9a-f]+$")
    set(AMDAHL_GIT_COMMIT "${commit}")
    execute_process(COMMAND "${GIT_EXECUTABLE}" status --porcelain --untracked-files=no
                    WORKING_DIRECTORY "${SRC_DIR}" OUTPUT_VARIABLE changes ERROR_QUIET RESULT_VARIABLE rc2)
    if(rc2 EQUAL 0 AND NOT changes STREQUAL "")
      string(APPEND AMDAHL_GIT_COMMIT "-dirty")
    endif()
  endif()
endif()
configure_file("${IN}" "${OUT}" @ONLY)
