// A tiny stderr logger for the injected collector (it must not touch the host's spdlog
// default logger). Level from AMDAHL_LOG_LEVEL: trace, debug, info, warn (default), error, off.
#pragma once

namespace amdahl::profiler::detail {

enum class LogLevel : int { Trace = 0, Debug = 1, Info = 2, Warn = 3, Error = 4, Off = 5 };

// Whether messages at `level` are printed.
bool log_enabled(LogLevel level) noexcept;
// printf-style; one line, prefixed "amdahl collector: ". Never throws.
void log_message(LogLevel level, const char* fmt, ...) noexcept
    __attribute__((format(printf, 2, 3)));

}  // namespace amdahl::profiler::detail
