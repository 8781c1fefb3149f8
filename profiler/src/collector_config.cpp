// The collector's settings (see collector_config.hpp).
#include "collector_config.hpp"

#include <strings.h>

#include <cstdlib>
#include <cstring>

namespace amdahl::profiler {
namespace {

// A whole decimal number (strtoull over the full text), else `fallback`.
std::size_t size_or(const char* v, std::size_t fallback) noexcept {
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v, &end, 10);
  return (end != v && *end == '\0') ? static_cast<std::size_t>(n) : fallback;
}

// "0", "off" or "false".
bool is_off(const char* v) noexcept {
  return v != nullptr && (std::strcmp(v, "0") == 0 || std::strcmp(v, "off") == 0 || std::strcmp(v, "false") == 0);
}

bool equals(const char* v, const char* text) noexcept { return v != nullptr && std::strcmp(v, text) == 0; }
bool non_empty(const char* v) noexcept { return v != nullptr && *v != '\0'; }

}  // namespace

LogLevel parse_log_level(std::string_view s) noexcept {
  struct Name {
    std::string_view text;
    LogLevel level;
  };
  static constexpr Name kNames[] = {
      {"trace", LogLevel::Trace}, {"debug", LogLevel::Debug},   {"info", LogLevel::Info},
      {"warn", LogLevel::Warn},   {"warning", LogLevel::Warn},  {"error", LogLevel::Error},
      {"err", LogLevel::Error},   {"critical", LogLevel::Error}, {"off", LogLevel::Off},
      {"none", LogLevel::Off}};
  for (const auto& n : kNames) {
    if (s.size() == n.text.size() && strncasecmp(s.data(), n.text.data(), s.size()) == 0) return n.level;
  }
  return LogLevel::Warn;
}

CollectorConfig read_config(const EnvLookup& env) {
  CollectorConfig c;
  if (const char* v = env("AMDAHL_LOG_LEVEL")) c.log_level = parse_log_level(v);
  if (const char* v = env("AMDAHL_PART_DIR")) c.part_dir = v;

  const char* clock = env("AMDAHL_CLOCK");
  c.clock_monotonic = equals(clock, "monotonic");
  if (non_empty(clock) && !c.clock_monotonic && !equals(clock, "auto")) c.clock_invalid = clock;

  if (const char* v = env("AMDAHL_MEMORY_BUDGET_MB")) {
    char* end = nullptr;
    const long long mb = std::strtoll(v, &end, 10);
    if (end != v && mb > 0) c.memory_budget_bytes = mb << 20;
  }

  const char* on_full = env("AMDAHL_ON_FULL");
  c.spill = !equals(on_full, "drop");
  if (non_empty(on_full) && c.spill && !equals(on_full, "spill")) c.on_full_invalid = on_full;

  if (const char* v = env("AMDAHL_GPU_STEPS"); non_empty(v)) {
    c.gpu_steps = v;
    c.gpu_schedule = parse_gpu_schedule(v);
    c.gpu_marks_always = equals(env("AMDAHL_GPU_MARKS"), "always");
  }

  c.range_cpu = !equals(env("AMDAHL_RANGE_CPU"), "0");

  if (const char* v = env("AMDAHL_FLUSH_MS"); non_empty(v)) {
    char* end = nullptr;
    const long long ms = std::strtoll(v, &end, 10);
    if (end != v && ms >= 0) c.flush_ms = ms;
  }

  c.prefault = !is_off(env("AMDAHL_PREFAULT"));
  c.crash_handlers = !equals(env("AMDAHL_CRASH_HANDLERS"), "0");
  if (const char* v = env("AMDAHL_CRASH_WRITE_S"); non_empty(v)) {
    c.crash_write_s = static_cast<unsigned>(std::strtoul(v, nullptr, 10));
  }

  c.cupti_buffer_kb = size_or(env("AMDAHL_CUPTI_BUFFER_KB"), c.cupti_buffer_kb);
  c.cupti_max_buffers = size_or(env("AMDAHL_CUPTI_MAX_BUFFERS"), c.cupti_max_buffers);
  c.cupti_flush_ms = size_or(env("AMDAHL_CUPTI_FLUSH_MS"), c.cupti_flush_ms);
  c.cupti = !is_off(env("AMDAHL_CUPTI"));
  c.cupti_timestamp = !is_off(env("AMDAHL_CUPTI_TIMESTAMP"));
  c.cupti_exit_sync = !is_off(env("AMDAHL_CUPTI_EXIT_SYNC"));
  c.cupti_driver = !is_off(env("AMDAHL_CUPTI_DRIVER"));
  c.cupti_subscribe = !is_off(env("AMDAHL_CUPTI_SUBSCRIBE"));
  if (const char* v = env("AMDAHL_CUPTI_API")) c.cupti_api = v;
  return c;
}

const CollectorConfig& collector_config() noexcept {
  // Never destroyed: exit handlers and CUPTI's threads may read it while static destructors run.
  static const CollectorConfig* config = []() -> const CollectorConfig* {
    try {
      return new CollectorConfig(read_config([](const char* name) -> const char* { return std::getenv(name); }));
    } catch (...) {
      static const CollectorConfig defaults;
      return &defaults;
    }
  }();
  return *config;
}

}  // namespace amdahl::profiler
