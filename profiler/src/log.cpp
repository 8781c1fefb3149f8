// The collector's stderr logger: level parsing and one write(2) per message.
#include "log.hpp"

#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace amdahl::profiler::detail {
namespace {

LogLevel parse_level() noexcept {
  const char* v = std::getenv("AMDAHL_LOG_LEVEL");
  if (v == nullptr || *v == '\0') return LogLevel::Warn;
  struct Name { const char* text; LogLevel level; };
  static constexpr Name kNames[] = {
      {"trace", LogLevel::Trace}, {"debug", LogLevel::Debug}, {"info", LogLevel::Info},
      {"warn", LogLevel::Warn},   {"warning", LogLevel::Warn}, {"error", LogLevel::Error},
      {"err", LogLevel::Error},   {"off", LogLevel::Off},     {"critical", LogLevel::Error}};
  for (const auto& n : kNames) {
    if (strcasecmp(v, n.text) == 0) return n.level;
  }
  return LogLevel::Warn;
}

LogLevel current_level() noexcept {
  static const LogLevel level = parse_level();
  return level;
}

}  // namespace

bool log_enabled(LogLevel level) noexcept {
  return static_cast<int>(level) >= static_cast<int>(current_level()) && level != LogLevel::Off;
}

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

}  // namespace amdahl::profiler::detail
