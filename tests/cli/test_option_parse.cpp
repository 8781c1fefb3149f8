// The CLI's option parsers (cli/src/option_parse.hpp): strings in, typed values for the
// analysis out, analysis::UsageError with one line otherwise.
#include <doctest/doctest.h>

#include "amdahl/analysis/errors.hpp"
#include "option_parse.hpp"

using amdahl::analysis::UsageError;
using namespace amdahl::cli;

TEST_CASE("factor parsing") {
  CHECK(parse_factor("2") == 2.0);
  CHECK(parse_factor("2x") == 2.0);
  CHECK(parse_factor("2X") == 2.0);
  CHECK(parse_factor("1.5x") == 1.5);
  CHECK(parse_factor("0.5") == 0.5);
  CHECK(parse_factor(" 3 ") == 3.0);
  for (const char* bad : {"", "x", "abc", "0", "-1", "2xx", "inf", "nan", "1e999", "2 x3"})
    CHECK_THROWS_AS(parse_factor(bad), UsageError);
  CHECK_THROWS_WITH(parse_factor("0"), "bad factor '0': it must be a positive number");
}

TEST_CASE("--speedup STAGE=FACTOR and STAGE:host=FACTOR") {
  auto r = parse_speedup("cpu_preprocess=2x");
  CHECK(r.stage == "cpu_preprocess");
  CHECK(r.factor == 2.0);
  CHECK_FALSE(r.host);
  r = parse_speedup(" gpu_compute:host = 1.5");
  CHECK(r.stage == "gpu_compute");
  CHECK(r.host);
  CHECK(r.factor == 1.5);
  CHECK_THROWS_AS(parse_speedup("cpu_preprocess"), UsageError);
  CHECK_THROWS_WITH(parse_speedup("=2"), "bad --speedup '=2': no stage before '='");
  CHECK_THROWS_AS(parse_speedup("h2d=fast"), UsageError);
}

TEST_CASE("--workers and --worker-stages parsing") {
  CHECK(parse_count_option("4", "--workers") == 4);
  CHECK(parse_count_option(" 16 ", "--workers") == 16);
  CHECK(parse_count_option("4096", "--workers") == 4096);
  CHECK_THROWS_AS(parse_count_option("4097", "--workers"), UsageError);
  CHECK_THROWS_AS(parse_count_option("0", "--workers"), UsageError);
  CHECK_THROWS_AS(parse_count_option("-1", "--workers"), UsageError);
  CHECK_THROWS_AS(parse_count_option("4x", "--workers"), UsageError);
  CHECK_THROWS_WITH(parse_count_option("", "--ranks"), "bad --ranks '': expected a whole number from 1 to 4096");
  CHECK(parse_stage_list("disk_io,cpu_preprocess") == std::vector<std::string>{"disk_io", "cpu_preprocess"});
  CHECK(parse_stage_list(" tokenize ") == std::vector<std::string>{"tokenize"});
  CHECK_THROWS_AS(parse_stage_list("a,,b"), UsageError);
  CHECK_THROWS_AS(parse_stage_list("a,"), UsageError);
  CHECK_THROWS_AS(parse_stage_list(""), UsageError);
}

TEST_CASE("the two number readers: decimals and whole numbers, no spaces, no overflow") {
  CHECK(decimal_text("2.5") == 2.5);
  CHECK(decimal_text("1e3") == 1000.0);
  CHECK(decimal_text("-0.5") == -0.5);
  CHECK_FALSE(decimal_text("").has_value());
  CHECK_FALSE(decimal_text(" 2").has_value());
  CHECK_FALSE(decimal_text("0x10").has_value());
  CHECK_FALSE(decimal_text("inf").has_value());
  CHECK_FALSE(decimal_text("1e").has_value());
  CHECK(decimal_text("1e999").has_value());  // read; the caller refuses the infinity
  CHECK(whole_text("4096", 6) == 4096);
  CHECK(whole_text("999999999999999999", 18) == 999999999999999999LL);
  CHECK_FALSE(whole_text("1234567", 6).has_value());
  CHECK_FALSE(whole_text("1000000000000000000", 18).has_value());
  CHECK_FALSE(whole_text("-1", 6).has_value());
  CHECK_FALSE(whole_text("", 6).has_value());
  CHECK_FALSE(whole_text("1", 19).has_value());
}
