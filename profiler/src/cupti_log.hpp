// A tiny stderr logger for the CUPTI collector (never the host program's logger). The level
// comes from AMDAHL_LOG_LEVEL (trace, debug, info, warn, error, off; default warn). Used for
// set-up and tear-down events only, never per record.
#pragma once

#include <string_view>

namespace amdahl::profiler::cupti {

enum class LogLevel { Trace = 0, Debug = 1, Info = 2, Warn = 3, Error = 4, Off = 5 };

// Parses a level name (case-insensitive); unknown or empty gives Warn.
LogLevel parse_log_level(std::string_view s) noexcept;

// The level read once from AMDAHL_LOG_LEVEL.
LogLevel log_level() noexcept;

// printf-style; prefixes "amdahl-cupti[<pid>] <level>: " and ends the line.
void log(LogLevel level, const char* fmt, ...) noexcept __attribute__((format(printf, 2, 3)));

}  // namespace amdahl::profiler::cupti
