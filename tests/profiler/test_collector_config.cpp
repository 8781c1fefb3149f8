// The collector's settings (collector_config.hpp): every AMDAHL_* variable's parse, its default
// and what a bad value gives, through read_config() with a fake environment.
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "collector_config.hpp"

using namespace amdahl::profiler;

namespace {

CollectorConfig read(const std::map<std::string, std::string>& vars) {
  return read_config([&vars](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

CollectorConfig with(const char* name, const char* value) { return read({{name, value}}); }

}  // namespace

TEST_CASE("an empty environment gives every default") {
  int asked = 0;
  const CollectorConfig c = read_config([&asked](const char* name) -> const char* {
    CHECK(std::string(name).rfind("AMDAHL_", 0) == 0);  // only AMDAHL_* variables
    ++asked;
    return nullptr;
  });
  CHECK(asked > 0);
  CHECK(c.log_level == LogLevel::Warn);
  CHECK(c.part_dir.empty());
  CHECK_FALSE(c.clock_monotonic);
  CHECK_FALSE(c.clock_invalid);
  CHECK(c.memory_budget_bytes == std::int64_t{1024} << 20);
  CHECK(c.spill);
  CHECK_FALSE(c.on_full_invalid);
  CHECK_FALSE(c.gpu_steps);
  CHECK_FALSE(c.gpu_schedule);
  CHECK_FALSE(c.gpu_marks_always);
  CHECK(c.range_cpu);
  CHECK(c.flush_ms == 500);
  CHECK(c.prefault);
  CHECK(c.crash_handlers);
  CHECK(c.crash_write_s == 10);
  CHECK(c.cupti_buffer_kb == 4096);
  CHECK(c.cupti_max_buffers == 64);
  CHECK(c.cupti_flush_ms == 0);
  CHECK(c.cupti);
  CHECK(c.cupti_timestamp);
  CHECK(c.cupti_exit_sync);
  CHECK(c.cupti_driver);
  CHECK(c.cupti_subscribe);
  CHECK(c.cupti_api.empty());
}

TEST_CASE("AMDAHL_LOG_LEVEL: names in any case, aliases, anything else warn") {
  const std::pair<const char*, LogLevel> names[] = {
      {"trace", LogLevel::Trace}, {"DEBUG", LogLevel::Debug},  {"Info", LogLevel::Info},      {"warn", LogLevel::Warn},
      {"warning", LogLevel::Warn}, {"error", LogLevel::Error}, {"ERR", LogLevel::Error},      {"critical", LogLevel::Error},
      {"off", LogLevel::Off},     {"None", LogLevel::Off},     {"", LogLevel::Warn},          {"verbose", LogLevel::Warn},
      {"of", LogLevel::Warn},     {"offf", LogLevel::Warn}};
  for (const auto& [text, level] : names) {
    INFO(text);
    CHECK(parse_log_level(text) == level);
  }
  CHECK(with("AMDAHL_LOG_LEVEL", "debug").log_level == LogLevel::Debug);
  CHECK(with("AMDAHL_LOG_LEVEL", "off").log_level == LogLevel::Off);
  CHECK(with("AMDAHL_LOG_LEVEL", "").log_level == LogLevel::Warn);
  CHECK(with("AMDAHL_LOG_LEVEL", "loud").log_level == LogLevel::Warn);
}

TEST_CASE("AMDAHL_PART_DIR is taken as given") {
  CHECK(with("AMDAHL_PART_DIR", "/tmp/parts").part_dir == "/tmp/parts");
  CHECK(with("AMDAHL_PART_DIR", "").part_dir.empty());
}

TEST_CASE("AMDAHL_CLOCK and AMDAHL_ON_FULL: two words each; another value is kept for the warning") {
  // AMDAHL_CLOCK: monotonic, or auto (default); AMDAHL_ON_FULL: drop, or spill (default).
  auto clock = [](const char* v) { return with("AMDAHL_CLOCK", v); };
  auto on_full = [](const char* v) { return with("AMDAHL_ON_FULL", v); };
  CHECK(clock("monotonic").clock_monotonic);
  CHECK_FALSE(clock("auto").clock_monotonic);
  CHECK_FALSE(on_full("drop").spill);
  CHECK(on_full("spill").spill);
  for (const char* good : {"monotonic", "auto", ""}) CHECK_FALSE(clock(good).clock_invalid);
  for (const char* good : {"drop", "spill", ""}) CHECK_FALSE(on_full(good).on_full_invalid);
  const CollectorConfig bad_clock = clock("Monotonic");
  CHECK_FALSE(bad_clock.clock_monotonic);  // case matters
  REQUIRE(bad_clock.clock_invalid);
  CHECK(*bad_clock.clock_invalid == "Monotonic");
  const CollectorConfig bad_full = on_full("block");
  CHECK(bad_full.spill);
  REQUIRE(bad_full.on_full_invalid);
  CHECK(*bad_full.on_full_invalid == "block");
}

TEST_CASE("AMDAHL_MEMORY_BUDGET_MB: a positive number of MiB, else 1024") {
  CHECK(with("AMDAHL_MEMORY_BUDGET_MB", "64").memory_budget_bytes == std::int64_t{64} << 20);
  CHECK(with("AMDAHL_MEMORY_BUDGET_MB", "8x").memory_budget_bytes == std::int64_t{8} << 20);  // strtoll's prefix
  for (const char* bad : {"", "0", "-5", "lots"}) {
    INFO(bad);
    CHECK(with("AMDAHL_MEMORY_BUDGET_MB", bad).memory_budget_bytes == std::int64_t{1024} << 20);
  }
}

TEST_CASE("AMDAHL_GPU_STEPS and AMDAHL_GPU_MARKS") {
  const CollectorConfig w = with("AMDAHL_GPU_STEPS", "4:10");
  REQUIRE(w.gpu_steps);
  CHECK(*w.gpu_steps == "4:10");
  REQUIRE(w.gpu_schedule);
  CHECK(w.gpu_schedule->kind == ScheduleKind::Window);
  CHECK(w.gpu_schedule->from == 4);
  CHECK(w.gpu_schedule->to == 10);
  const CollectorConfig s = with("AMDAHL_GPU_STEPS", "2/10@5");
  REQUIRE(s.gpu_schedule);
  CHECK(s.gpu_schedule->kind == ScheduleKind::Sample);
  CHECK(s.gpu_schedule->skip == 5);
  const CollectorConfig all = with("AMDAHL_GPU_STEPS", "all");
  REQUIRE(all.gpu_schedule);
  CHECK(all.gpu_schedule->kind == ScheduleKind::All);
  const CollectorConfig bad = with("AMDAHL_GPU_STEPS", "10:4");
  REQUIRE(bad.gpu_steps);  // kept for the warning
  CHECK(*bad.gpu_steps == "10:4");
  CHECK_FALSE(bad.gpu_schedule);
  CHECK_FALSE(with("AMDAHL_GPU_STEPS", "").gpu_steps);
  // The marks switch is read only with a schedule.
  CHECK(read({{"AMDAHL_GPU_STEPS", "2/10"}, {"AMDAHL_GPU_MARKS", "always"}}).gpu_marks_always);
  CHECK_FALSE(read({{"AMDAHL_GPU_STEPS", "2/10"}, {"AMDAHL_GPU_MARKS", "yes"}}).gpu_marks_always);
  CHECK_FALSE(with("AMDAHL_GPU_MARKS", "always").gpu_marks_always);
}

TEST_CASE("AMDAHL_RANGE_CPU and AMDAHL_CRASH_HANDLERS: only 0 turns them off") {
  CHECK_FALSE(with("AMDAHL_RANGE_CPU", "0").range_cpu);
  CHECK(with("AMDAHL_RANGE_CPU", "off").range_cpu);
  CHECK(with("AMDAHL_RANGE_CPU", "").range_cpu);
  CHECK_FALSE(with("AMDAHL_CRASH_HANDLERS", "0").crash_handlers);
  CHECK(with("AMDAHL_CRASH_HANDLERS", "false").crash_handlers);
  CHECK(with("AMDAHL_CRASH_HANDLERS", "1").crash_handlers);
}

TEST_CASE("AMDAHL_PREFAULT: 0, off or false turn the look-ahead off") {
  CHECK_FALSE(with("AMDAHL_PREFAULT", "0").prefault);
  CHECK_FALSE(with("AMDAHL_PREFAULT", "off").prefault);
  CHECK_FALSE(with("AMDAHL_PREFAULT", "false").prefault);
  CHECK(with("AMDAHL_PREFAULT", "1").prefault);
  CHECK(with("AMDAHL_PREFAULT", "").prefault);
}

TEST_CASE("numbers: AMDAHL_FLUSH_MS, AMDAHL_CRASH_WRITE_S and the CUPTI sizes, with their defaults") {
  struct Case {
    const char* name;
    const char* value;
    std::uint64_t expected;
  };
  const Case cases[] = {
      // AMDAHL_FLUSH_MS: strtoll, >= 0 (0: no flusher), else 500.
      {"AMDAHL_FLUSH_MS", "0", 0}, {"AMDAHL_FLUSH_MS", "250", 250}, {"AMDAHL_FLUSH_MS", "75ms", 75},
      {"AMDAHL_FLUSH_MS", "", 500}, {"AMDAHL_FLUSH_MS", "-1", 500}, {"AMDAHL_FLUSH_MS", "soon", 500},
      // AMDAHL_CRASH_WRITE_S: strtoul of a non-empty value, else 10.
      {"AMDAHL_CRASH_WRITE_S", "3", 3}, {"AMDAHL_CRASH_WRITE_S", "0", 0}, {"AMDAHL_CRASH_WRITE_S", "x", 0},
      {"AMDAHL_CRASH_WRITE_S", "", 10},
      // CUPTI sizes: a whole decimal number, else the default.
      {"AMDAHL_CUPTI_BUFFER_KB", "1024", 1024}, {"AMDAHL_CUPTI_BUFFER_KB", "", 4096},
      {"AMDAHL_CUPTI_BUFFER_KB", "12k", 4096}, {"AMDAHL_CUPTI_BUFFER_KB", "big", 4096},
      {"AMDAHL_CUPTI_MAX_BUFFERS", "8", 8}, {"AMDAHL_CUPTI_MAX_BUFFERS", "", 64}, {"AMDAHL_CUPTI_MAX_BUFFERS", "12k", 64},
      {"AMDAHL_CUPTI_FLUSH_MS", "100", 100}, {"AMDAHL_CUPTI_FLUSH_MS", "", 0}, {"AMDAHL_CUPTI_FLUSH_MS", "big", 0}};
  for (const Case& k : cases) {
    INFO(k.name << "=" << k.value);
    const CollectorConfig c = with(k.name, k.value);
    const std::string n = k.name;
    const std::uint64_t got = n == "AMDAHL_FLUSH_MS"          ? static_cast<std::uint64_t>(c.flush_ms)
                              : n == "AMDAHL_CRASH_WRITE_S"   ? c.crash_write_s
                              : n == "AMDAHL_CUPTI_BUFFER_KB" ? c.cupti_buffer_kb
                              : n == "AMDAHL_CUPTI_MAX_BUFFERS" ? c.cupti_max_buffers
                                                                : c.cupti_flush_ms;
    CHECK(got == k.expected);
  }
}

TEST_CASE("CUPTI switches: 0, off or false turn them off; anything else leaves them on") {
  for (const char* name : {"AMDAHL_CUPTI", "AMDAHL_CUPTI_TIMESTAMP", "AMDAHL_CUPTI_EXIT_SYNC", "AMDAHL_CUPTI_DRIVER",
                           "AMDAHL_CUPTI_SUBSCRIBE"}) {
    auto flag = [name](const char* value) {
      const CollectorConfig c = with(name, value);
      const std::string n = name;
      if (n == "AMDAHL_CUPTI") return c.cupti;
      if (n == "AMDAHL_CUPTI_TIMESTAMP") return c.cupti_timestamp;
      if (n == "AMDAHL_CUPTI_EXIT_SYNC") return c.cupti_exit_sync;
      if (n == "AMDAHL_CUPTI_DRIVER") return c.cupti_driver;
      return c.cupti_subscribe;
    };
    INFO(name);
    CHECK_FALSE(flag("0"));
    CHECK_FALSE(flag("off"));
    CHECK_FALSE(flag("false"));
    CHECK(flag("1"));
    CHECK(flag(""));
    CHECK(flag("OFF"));  // case matters
  }
}

TEST_CASE("AMDAHL_CUPTI_API is kept as given (the CUPTI side parses it)") {
  CHECK(with("AMDAHL_CUPTI_API", "all").cupti_api == "all");
  CHECK(with("AMDAHL_CUPTI_API", "bogus").cupti_api == "bogus");
}

TEST_CASE("docs/collector.md's Environment table has a row for every variable read_config reads") {
  std::set<std::string> asked;
  (void)read_config([&asked](const char* name) -> const char* {
    asked.insert(name);
    return std::string(name) == "AMDAHL_GPU_STEPS" ? "2/10" : nullptr;  // so that AMDAHL_GPU_MARKS is read too
  });
  CHECK(asked.size() == 21);  // a new setting: add its row to the table (and update this count)
  std::ifstream in(AMDAHL_DOCS_DIR "/collector.md");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  for (const std::string& name : asked) {
    INFO(name);
    CHECK(doc.find("\n| `" + name + "` | ") != std::string::npos);
  }
}
