// The one home of the renderers' number formatting: fixed and general digits as printf prints
// them (without a buffer that can cut), padding to a column width, JSON numbers (null where
// JSON has no value), percentages, durations and speedups, with the one word every format
// prints for a speedup that has no bound. Where two renderers round differently, both are here
// under their own names (outputs stay byte-identical).
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <system_error>

#include <nlohmann/json.hpp>

namespace amdahl::render::detail {

// --- printf's digits, in a std::string -----------------------------------------------------------
// std::to_chars with a precision converts as printf does in the "C" locale ([charconv.to.chars]):
// the same rounding (the exact binary value, ties to even), nan, inf and -0.
inline std::string to_chars_string(double v, std::chars_format format, int precision) {
  std::string s(32 + static_cast<std::size_t>(precision > 0 ? precision : 0), '\0');
  for (;;) {
    const auto r = std::to_chars(s.data(), s.data() + s.size(), v, format, precision);
    if (r.ec == std::errc()) {
      s.resize(static_cast<std::size_t>(r.ptr - s.data()));
      return s;
    }
    s.resize(2 * s.size() + 330);  // a fixed double has at most 309 integer digits
  }
}
// printf("%.*f", digits, v): fixed(1.5, 3) == "1.500".
inline std::string fixed(double v, int digits) { return to_chars_string(v, std::chars_format::fixed, digits); }
// printf("%+.*f", digits, v): a sign always ("+0.0", "-1.5").
inline std::string signed_fixed(double v, int digits) {
  std::string s = fixed(v, digits);
  return s.front() == '-' ? s : "+" + s;
}
// printf("%.*g", digits, v) (printf's "%g" is general(v, 6)).
inline std::string general(double v, int digits) { return to_chars_string(v, std::chars_format::general, digits); }

// --- columns -------------------------------------------------------------------------------------
// printf("%*s", width, s): right-aligned in `width` bytes (never cut).
inline std::string right(const std::string& s, std::size_t width) {
  return s.size() < width ? std::string(width - s.size(), ' ') + s : s;
}
// printf("%-*s", width, s): left-aligned in `width` bytes (never cut).
inline std::string left(const std::string& s, std::size_t width) {
  return s.size() < width ? s + std::string(width - s.size(), ' ') : s;
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
// The speedup with `digits` decimals ("1.50x"), or kUnboundedSpeedup when it is not finite.
inline std::string speedup_text(double s, int digits) {
  return std::isfinite(s) ? fixed(s, digits) + "x" : kUnboundedSpeedup;
}
// The same, also unbounded above 1e12 (projections: a limit of 1 / ~0).
inline std::string capped_speedup_text(double s, int digits) {
  return std::isfinite(s) && s <= 1e12 ? fixed(s, digits) + "x" : kUnboundedSpeedup;
}
// The HTML and Markdown tables' speedup: "1.500x" (three decimals), unbounded above 1e12.
inline std::string speedup(double s) { return capped_speedup_text(s, 3); }

// --- shares --------------------------------------------------------------------------------------
// part / whole, 0 when whole is 0.
inline double share(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}
// A fraction as a percentage with one decimal: pct(0.1234) == "12.3%".
inline std::string pct(double fraction) { return fixed(fraction * 100, 1) + "%"; }
// A fraction as a whole percentage: pct_whole(0.1234) == "12%".
inline std::string pct_whole(double fraction) { return fixed(100.0 * fraction, 0) + "%"; }

// --- durations -----------------------------------------------------------------------------------
// Nanoseconds as milliseconds, no unit: 4 decimals under 0.1 ms (not 0), else 2 ("12.35").
inline std::string ms(double ns) { return fixed(ns / 1e6, ns != 0 && ns < 1e5 && ns > -1e5 ? 4 : 2); }
// Nanoseconds as milliseconds with one decimal, no unit ("12.3"; the GPU-only report).
inline std::string ms_tenths(std::int64_t ns) { return fixed(static_cast<double>(ns) / 1e6, 1); }

}  // namespace amdahl::render::detail
