# Compiler warnings for amdahl's own targets: call amdahl_warnings(target).
function(amdahl_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${AMDAHL_WARNINGS_AS_ERRORS}>>:-Werror>)
endfunction()
