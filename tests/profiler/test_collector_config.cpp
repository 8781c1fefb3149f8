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
  CHECK(parse_log_level("trace") == LogLevel::Trace);
  CHECK(parse_log_level("DEBUG") == LogLevel::Debug);
  CHECK(parse_log_level("Info") == LogLevel::Info);
  CHECK(parse_log_level("warn") == LogLevel::Warn);
  CHECK(parse_log_level("warning") == LogLevel::Warn);
  CHECK(parse_log_level("error") == LogLevel::Error);
  CHECK(parse_log_level("ERR") == LogLevel::Error);
  CHECK(parse_log_level("critical") == LogLevel::Error);
  CHECK(parse_log_level("off") == LogLevel::Off);
  CHECK(parse_log_level("None") == LogLevel::Off);
  CHECK(parse_log_level("") == LogLevel::Warn);
  CHECK(parse_log_level("verbose") == LogLevel::Warn);
  CHECK(parse_log_level("of") == LogLevel::Warn);
  CHECK(parse_log_level("offf") == LogLevel::Warn);
  CHECK(with("AMDAHL_LOG_LEVEL", "debug").log_level == LogLevel::Debug);
  CHECK(with("AMDAHL_LOG_LEVEL", "off").log_level == LogLevel::Off);
  CHECK(with("AMDAHL_LOG_LEVEL", "").log_level == LogLevel::Warn);
  CHECK(with("AMDAHL_LOG_LEVEL", "loud").log_level == LogLevel::Warn);
}

TEST_CASE("AMDAHL_PART_DIR is taken as given") {
  CHECK(with("AMDAHL_PART_DIR", "/tmp/parts").part_dir == "/tmp/parts");
  CHECK(with("AMDAHL_PART_DIR", "").part_dir.empty());
}

TEST_CASE("AMDAHL_CLOCK: auto, monotonic; another value is kept for the warning") {
  CHECK(with("AMDAHL_CLOCK", "monotonic").clock_monotonic);
  CHECK_FALSE(with("AMDAHL_CLOCK", "monotonic").clock_invalid);
  CHECK_FALSE(with("AMDAHL_CLOCK", "auto").clock_monotonic);
  CHECK_FALSE(with("AMDAHL_CLOCK", "auto").clock_invalid);
  CHECK_FALSE(with("AMDAHL_CLOCK", "").clock_invalid);
  const CollectorConfig bad = with("AMDAHL_CLOCK", "Monotonic");
  CHECK_FALSE(bad.clock_monotonic);  // case matters
  REQUIRE(bad.clock_invalid);
  CHECK(*bad.clock_invalid == "Monotonic");
}

TEST_CASE("AMDAHL_MEMORY_BUDGET_MB: a positive number of MiB, else 1024") {
  CHECK(with("AMDAHL_MEMORY_BUDGET_MB", "64").memory_budget_bytes == std::int64_t{64} << 20);
  CHECK(with("AMDAHL_MEMORY_BUDGET_MB", "8x").memory_budget_bytes == std::int64_t{8} << 20);  // strtoll's prefix
  for (const char* bad : {"", "0", "-5", "lots"}) {
    INFO(bad);
    CHECK(with("AMDAHL_MEMORY_BUDGET_MB", bad).memory_budget_bytes == std::int64_t{1024} << 20);
  }
}

TEST_CASE("AMDAHL_ON_FULL: spill (default) or drop; another value is kept for the warning, then spill") {
  CHECK_FALSE(with("AMDAHL_ON_FULL", "drop").spill);
  CHECK_FALSE(with("AMDAHL_ON_FULL", "drop").on_full_invalid);
  CHECK(with("AMDAHL_ON_FULL", "spill").spill);
  CHECK_FALSE(with("AMDAHL_ON_FULL", "spill").on_full_invalid);
  CHECK_FALSE(with("AMDAHL_ON_FULL", "").on_full_invalid);
  const CollectorConfig bad = with("AMDAHL_ON_FULL", "block");
  CHECK(bad.spill);
  REQUIRE(bad.on_full_invalid);
  CHECK(*bad.on_full_invalid == "block");
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

TEST_CASE("AMDAHL_FLUSH_MS: a number >= 0 (0: no flusher), else 500") {
  CHECK(with("AMDAHL_FLUSH_MS", "0").flush_ms == 0);
  CHECK(with("AMDAHL_FLUSH_MS", "250").flush_ms == 250);
  CHECK(with("AMDAHL_FLUSH_MS", "75ms").flush_ms == 75);
  for (const char* bad : {"", "-1", "soon"}) {
    INFO(bad);
    CHECK(with("AMDAHL_FLUSH_MS", bad).flush_ms == 500);
  }
}

TEST_CASE("AMDAHL_CRASH_WRITE_S: strtoul of a non-empty value, else 10") {
  CHECK(with("AMDAHL_CRASH_WRITE_S", "3").crash_write_s == 3);
  CHECK(with("AMDAHL_CRASH_WRITE_S", "0").crash_write_s == 0);
  CHECK(with("AMDAHL_CRASH_WRITE_S", "x").crash_write_s == 0);
  CHECK(with("AMDAHL_CRASH_WRITE_S", "").crash_write_s == 10);
}

TEST_CASE("CUPTI sizes: a whole decimal number, else the default") {
  CHECK(with("AMDAHL_CUPTI_BUFFER_KB", "1024").cupti_buffer_kb == 1024);
  CHECK(with("AMDAHL_CUPTI_MAX_BUFFERS", "8").cupti_max_buffers == 8);
  CHECK(with("AMDAHL_CUPTI_FLUSH_MS", "100").cupti_flush_ms == 100);
  for (const char* bad : {"", "12k", "big"}) {
    INFO(bad);
    CHECK(with("AMDAHL_CUPTI_BUFFER_KB", bad).cupti_buffer_kb == 4096);
    CHECK(with("AMDAHL_CUPTI_MAX_BUFFERS", bad).cupti_max_buffers == 64);
    CHECK(with("AMDAHL_CUPTI_FLUSH_MS", bad).cupti_flush_ms == 0);
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
  CHECK(asked.size() == 20);  // a new setting: add its row to the table (and update this count)
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
