// The collector's one stderr logger (libamdahl_collector.so; libamdahl_cupti.so calls it
// through the export): never the host program's logger (no spdlog), one line per message, used
// for set-up and tear-down events, never per record. The level is the configuration's
// (AMDAHL_LOG_LEVEL, collector_config.hpp: trace, debug, info, warn (default), error, off). Two
// line formats, as the collector has always printed them: the core's and NVTX layer's lines
// start "amdahl collector: ", the CUPTI collector's "amdahl-cupti[<pid>] <level>: ".
#pragma once

#include "collector_config.hpp"

namespace amdahl::profiler {

// Whether messages at `level` are printed.
bool log_enabled(LogLevel level) noexcept;

namespace detail {
using profiler::LogLevel;
using profiler::log_enabled;
// printf-style; one line, prefixed "amdahl collector: " (at most 1 KiB, one write(2)). Never throws.
void log_message(LogLevel level, const char* fmt, ...) noexcept __attribute__((format(printf, 2, 3)));
}  // namespace detail

namespace cupti {
using profiler::LogLevel;
// printf-style; one line, prefixed "amdahl-cupti[<pid>] <level>: " (message cut at 511 bytes).
AMDAHL_COLLECTOR_API void log(LogLevel level, const char* fmt, ...) noexcept __attribute__((format(printf, 2, 3)));
}  // namespace cupti

}  // namespace amdahl::profiler
