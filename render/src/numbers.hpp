// The one home of the renderers' number formatting: printf of one value, fixed digits, JSON
// numbers (null where JSON has no value), percentages, durations and speedups, with the one word
// every format prints for a speedup that has no bound. Where two renderers round differently,
// both are here under their own names (outputs stay byte-identical).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

namespace amdahl::render::detail {

// printf of one double: fmt("%.2f ms", v).
inline std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}
// `digits` decimals: fixed(1.5, 3) == "1.500".
inline std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// --- JSON ----------------------------------------------------------------------------------------
// A JSON number, or null where the value is not finite (JSON has no infinity nor NaN).
inline nlohmann::json num(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }
// The same, also null from 1e12 up (the guidance's projections: a limit that large is unbounded).
inline nlohmann::json num_below_1e12(double v) {
  return std::isfinite(v) && v < 1e12 ? nlohmann::json(v) : nlohmann::json(nullptr);
}

// --- speedups ------------------------------------------------------------------------------------
// What a speedup with no bound prints as, in text, HTML and Markdown alike (JSON: null).
inline constexpr const char* kUnboundedSpeedup = "inf";
// The speedup printed with `f` ("%.2fx"), or kUnboundedSpeedup when it is not finite.
inline std::string speedup_text(double s, const char* f) { return std::isfinite(s) ? fmt(f, s) : kUnboundedSpeedup; }
// The same, also unbounded above 1e12 (projections: a limit of 1 / ~0).
inline std::string capped_speedup_text(double s, const char* f) {
  return std::isfinite(s) && s <= 1e12 ? fmt(f, s) : kUnboundedSpeedup;
}
// The HTML and Markdown tables' speedup: "1.500x" (three decimals), unbounded above 1e12.
inline std::string speedup(double s) { return capped_speedup_text(s, "%.3fx"); }

// --- shares --------------------------------------------------------------------------------------
// part / whole, 0 when whole is 0.
inline double share(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}
// A fraction as a percentage with one decimal: pct(0.1234) == "12.3%".
inline std::string pct(double fraction) { return fixed(fraction * 100, 1) + "%"; }
// A fraction as a whole percentage: pct_whole(0.1234) == "12%".
inline std::string pct_whole(double fraction) { return fmt("%.0f%%", 100.0 * fraction); }

// --- durations -----------------------------------------------------------------------------------
// Nanoseconds as milliseconds, no unit: 4 decimals under 0.1 ms (not 0), else 2 ("12.35").
inline std::string ms(double ns) { return fixed(ns / 1e6, ns != 0 && ns < 1e5 && ns > -1e5 ? 4 : 2); }
// Nanoseconds as milliseconds with one decimal, no unit ("12.3"; the GPU-only report).
inline std::string ms_tenths(std::int64_t ns) { return fmt("%.1f", static_cast<double>(ns) / 1e6); }

}  // namespace amdahl::render::detail
