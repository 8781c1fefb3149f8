// The CUPTI collector's stderr logger (see cupti_log.hpp).
#include "cupti_log.hpp"

#include <unistd.h>

#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>

namespace amdahl::profiler::cupti {

namespace {
bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}
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

LogLevel parse_log_level(std::string_view s) noexcept {
  if (iequals(s, "trace")) return LogLevel::Trace;
  if (iequals(s, "debug")) return LogLevel::Debug;
  if (iequals(s, "info")) return LogLevel::Info;
  if (iequals(s, "warn") || iequals(s, "warning")) return LogLevel::Warn;
  if (iequals(s, "error") || iequals(s, "err")) return LogLevel::Error;
  if (iequals(s, "off") || iequals(s, "none")) return LogLevel::Off;
  return LogLevel::Warn;
}

LogLevel log_level() noexcept {
  static const LogLevel level = [] {
    const char* v = std::getenv("AMDAHL_LOG_LEVEL");
    return parse_log_level(v ? v : "");
  }();
  return level;
}

void log(LogLevel level, const char* fmt, ...) noexcept {
  if (level < log_level() || level == LogLevel::Off) return;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  std::fprintf(stderr, "amdahl-cupti[%d] %s: %s\n", static_cast<int>(getpid()), level_name(level), msg);
}

}  // namespace amdahl::profiler::cupti
