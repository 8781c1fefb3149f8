// The ranges of amdahl's numeric options as CLI11 checks (option_checks.hpp).
#include "option_checks.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "amdahl/analysis/errors.hpp"
#include "amdahl/export/chrome_trace.hpp"
#include "error_text.hpp"
#include "gpu_schedule.hpp"
#include "option_parse.hpp"
#include "step_window.hpp"

namespace amdahl::cli::checks {
namespace {

// "0.01", "1e+06", "100": short and exact enough for a message or the help.
std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// The value as a message quotes it: at most 40 characters.
std::string shown(const std::string& s) { return "'" + (s.size() > 40 ? s.substr(0, 40) + "..." : s) + "'"; }

// A decimal number, whole string (spaces around allowed); false for NaN, inf, hex, text.
bool parse_decimal(const std::string& text, double& out) {
  std::size_t a = 0, b = text.size();
  while (a < b && std::isspace(static_cast<unsigned char>(text[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(text[b - 1]))) --b;
  const std::optional<double> v = decimal_text(std::string_view(text).substr(a, b - a));
  if (!v || !std::isfinite(*v)) return false;
  out = *v;
  return true;
}

// Runs a parser that throws analysis::UsageError; its message is the check's.
template <typename F>
std::string usage_of(F&& parse) {
  try {
    parse();
  } catch (const analysis::UsageError& e) {
    return error_text(e);
  }
  return {};
}

}  // namespace

CLI::Validator number_in(double lo, double hi, const char* what) {
  const std::string range = "a number from " + num(lo) + " to " + num(hi);
  return CLI::Validator(
      [lo, hi, range](std::string& s) -> std::string {
        double v = 0;
        if (!parse_decimal(s, v) || v < lo || v > hi) return "expected " + range + ", got " + shown(s);
        return {};
      },
      std::string(what) + " in [" + num(lo) + ", " + num(hi) + "]");
}

CLI::Validator whole_in(long long lo, long long hi) {
  const std::string range = "a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
  return CLI::Validator(
      [lo, hi, range](std::string& s) -> std::string {
        const std::optional<long long> v = whole_text(s, 18);  // 18 digits fit a long long
        if (!v || *v < lo || *v > hi) return "expected " + range + ", got " + shown(s);
        return {};
      },
      "N in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

CLI::Validator speedup_request() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        std::string why = usage_of([&] { parse_speedup(s); });
        if (!why.empty()) return why;
        const double k = parse_speedup(s).factor;
        if (k < kMinFactor || k > kMaxFactor)
          return "bad factor in " + shown(s) + ": expected a number from " + num(kMinFactor) + " (100 times slower) to " +
                 num(kMaxFactor);
        return {};
      },
      "STAGE=K, K in [" + num(kMinFactor) + ", " + num(kMaxFactor) + "]");
}

CLI::Validator target_speedup() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        double v = 0;
        std::string why = usage_of([&] { v = parse_factor(s); });
        if (!why.empty() || !(v > 1) || v > kMaxTarget)
          return "expected an overall speed-up above 1 and at most " + num(kMaxTarget) + " (e.g. 1.5x), got " + shown(s) +
                 (why.empty() && v <= 1 ? " (1x or less needs no change)" : "");
        return {};
      },
      "X in (1, " + num(kMaxTarget) + "]");
}

CLI::Validator warmup_steps() {
  const CLI::Validator count = whole_in(0, 1'000'000'000);
  return CLI::Validator(
      [count](std::string& s) -> std::string {
        if (s == "auto") return {};
        std::string t = s;
        return count(t).empty() ? std::string() : "expected 'auto' or a whole number of steps from 0 to 1000000000, got " +
                                                      shown(s);
      },
      "auto|N in [0, 1e9]");
}

CLI::Validator worker_count() {
  return CLI::Validator([](std::string& s) { return usage_of([&] { parse_count_option(s, "value"); }); },
                        "N in [1, 4096]");
}

CLI::Validator export_window() {
  return CLI::Validator([](std::string& s) { return usage_of([&] { chrome::parse_window_ms(s); }); },
                        "START:END ms, each in [0, 1e12]");
}

CLI::Validator step_window() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        const auto sch = profiler::parse_gpu_schedule(s);
        if (sch && sch->kind != profiler::ScheduleKind::Sample) return {};
        return "expected all or FROM:TO with 0 <= FROM < TO (whole step numbers), e.g. 20:70, got " + shown(s);
      },
      "all|FROM:TO, 0 <= FROM < TO");
}

CLI::Validator gpu_sample() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        const auto sch = profiler::parse_gpu_schedule(s);
        if (sch && sch->kind == profiler::ScheduleKind::Sample) return {};
        return "expected K/M or K/M@SKIP with 0 < K < M (whole step numbers), optionally ,P% (1 <= P <= 100), e.g. 10/200@20,2%, got " + shown(s);
      },
      "K/M[@SKIP][,P%], 0 < K < M");
}

}  // namespace amdahl::cli::checks
