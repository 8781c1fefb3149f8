// Every AMDAHL_* setting the collector reads (libamdahl_collector.so and libamdahl_cupti.so),
// with its default and its parsing, in one plain struct. read_config() is pure: it sees the
// environment only through the lookup it is given (tests pass a fake one). The collector fills
// the struct once, at load (collector_config()); nothing else in profiler/ calls getenv for an
// AMDAHL_* variable. Values that get a warning keep their text here: the warning itself is
// printed where it always was (collector_load, the CUPTI start-up), with the same words.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "gpu_schedule.hpp"

#ifndef AMDAHL_COLLECTOR_API
#define AMDAHL_COLLECTOR_API __attribute__((visibility("default")))
#endif

namespace amdahl::profiler {

enum class LogLevel : int { Trace = 0, Debug = 1, Info = 2, Warn = 3, Error = 4, Off = 5 };

// AMDAHL_LOG_LEVEL, case-insensitive: trace, debug, info, warn|warning, error|err|critical,
// off|none. Empty or anything else: Warn.
LogLevel parse_log_level(std::string_view s) noexcept;

// The value of an environment variable, or nullptr when it is not set.
using EnvLookup = std::function<const char*(const char*)>;

struct CollectorConfig {
  // AMDAHL_LOG_LEVEL: both loggers (log.hpp).
  LogLevel log_level = LogLevel::Warn;
  // AMDAHL_PART_DIR: where parts go; empty (unset or empty): the collector stays off. Whether it
  // is a usable directory is checked at load, not here.
  std::string part_dir;
  // AMDAHL_CLOCK: "monotonic" forces clock_gettime; "auto" (default) or empty: the TSC where
  // it can. Another value: clock_invalid (warned, then auto).
  bool clock_monotonic = false;
  std::optional<std::string> clock_invalid;
  // AMDAHL_MEMORY_BUDGET_MB: record storage in memory (strtoll; a positive number of MiB).
  std::int64_t memory_budget_bytes = std::int64_t{1024} << 20;
  // AMDAHL_ON_FULL: "spill" (default) or "drop". Another non-empty value: on_full_invalid
  // (warned when the collector is on, then spill).
  bool spill = true;
  std::optional<std::string> on_full_invalid;
  // AMDAHL_GPU_STEPS: the GPU trace schedule (gpu_schedule.hpp). gpu_steps: the text when set
  // and non-empty; gpu_schedule: its parse (nullopt when unset or not a schedule: warned, then
  // everything traced).
  std::optional<std::string> gpu_steps;
  std::optional<GpuSchedule> gpu_schedule;
  // AMDAHL_GPU_MARKS=always (read only with AMDAHL_GPU_STEPS): sampled windows are marked
  // even in a process without CUDA (tests).
  bool gpu_marks_always = false;
  // AMDAHL_RANGE_CPU: "0" turns the per-range CPU times of domain `amdahl` off.
  bool range_cpu = true;
  // AMDAHL_FLUSH_MS: the flusher's interval (strtoll; negative or no number: 500; 0: no flusher).
  std::int64_t flush_ms = 500;
  // AMDAHL_PREFAULT: "0", "off" or "false": no look-ahead page faulting (chunked_buffer.hpp).
  bool prefault = true;
  // AMDAHL_CRASH_HANDLERS: "0": no fatal-signal handlers.
  bool crash_handlers = true;
  // AMDAHL_CRASH_WRITE_S: time limit of the crash write in seconds (strtoul; 0: none).
  unsigned crash_write_s = 10;
  // CUPTI (libamdahl_cupti.so). Sizes: a whole decimal number, else the default.
  std::size_t cupti_buffer_kb = 4096;   // AMDAHL_CUPTI_BUFFER_KB
  std::size_t cupti_max_buffers = 64;   // AMDAHL_CUPTI_MAX_BUFFERS
  std::size_t cupti_flush_ms = 0;       // AMDAHL_CUPTI_FLUSH_MS (0: no periodic CUPTI flush)
  // Switches: "0", "off" or "false" turn them off.
  bool cupti = true;            // AMDAHL_CUPTI: GPU activity collected at all
  bool cupti_timestamp = true;  // AMDAHL_CUPTI_TIMESTAMP: CUPTI on the collector's clock (off: experiments)
  bool cupti_exit_sync = true;  // AMDAHL_CUPTI_EXIT_SYNC: cudaDeviceSynchronize before the last flush
  bool cupti_driver = true;     // AMDAHL_CUPTI_DRIVER: driver API records
  bool cupti_subscribe = true;  // AMDAHL_CUPTI_SUBSCRIBE: callbacks (flush at cudaDeviceReset)
  // AMDAHL_CUPTI_API: launch (default, also empty), all, none|0|off: the text as given (empty
  // when unset); parsed by the CUPTI side (cupti_api_filter.hpp), which warns on another value.
  std::string cupti_api;
};

// Reads every setting above through `env`. Pure: no logging, no file system.
CollectorConfig read_config(const EnvLookup& env);

// The process's configuration: read_config(getenv) on the first call (the collector makes that
// call at load), the same object after. Exported: libamdahl_cupti.so reads it too.
AMDAHL_COLLECTOR_API const CollectorConfig& collector_config() noexcept;

}  // namespace amdahl::profiler
