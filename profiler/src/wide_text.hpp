// Conversion of NVTX wide-character (wchar_t, UTF-32 on Linux) messages to UTF-8.
#pragma once

#include <string>

namespace amdahl::profiler::detail {

// Converts a NUL-terminated wide string to UTF-8; invalid code points become U+FFFD.
std::string wide_to_utf8(const wchar_t* s);

}  // namespace amdahl::profiler::detail
