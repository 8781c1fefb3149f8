// The collector's stderr logger (see log.hpp): one level, two line formats.
#include "log.hpp"

#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace amdahl::profiler {

bool log_enabled(LogLevel level) noexcept {
  return static_cast<int>(level) >= static_cast<int>(collector_config().log_level) && level != LogLevel::Off;
}

namespace detail {

void log_message(LogLevel level, const char* fmt, ...) noexcept {
  if (!log_enabled(level)) return;
  char buf[1024];
  static constexpr char kPrefix[] = "amdahl collector: ";
  std::size_t n = sizeof(kPrefix) - 1;
  std::memcpy(buf, kPrefix, n);
  va_list ap;
  va_start(ap, fmt);
  const int w = std::vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);
  va_end(ap);
  if (w > 0) n += static_cast<std::size_t>(w) < sizeof(buf) - n - 1 ? static_cast<std::size_t>(w)
                                                                     : sizeof(buf) - n - 2;
  buf[n++] = '\n';
  const char* p = buf;
  while (n > 0) {
    const ssize_t r = ::write(2, p, n);
    if (r <= 0) break;
    p += r;
    n -= static_cast<std::size_t>(r);
  }
}

}  // namespace detail

namespace cupti {
namespace {
const char* level_name(LogLevel l) noexcept {
  switch (l) {
    case LogLevel::Trace: return "trace";
    case LogLevel::Debug: return "debug";
    case LogLevel::Info: return "info";
    case LogLevel::Warn: return "warn";
    case LogLevel::Error: return "error";
    default: return "off";
  }
}
}  // namespace

void log(LogLevel level, const char* fmt, ...) noexcept {
  if (!log_enabled(level)) return;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  std::fprintf(stderr, "amdahl-cupti[%d] %s: %s\n", static_cast<int>(getpid()), level_name(level), msg);
}

}  // namespace cupti
}  // namespace amdahl::profiler
