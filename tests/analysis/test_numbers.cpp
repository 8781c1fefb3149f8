// The renderers' number formatting (render/src/numbers.hpp) prints exactly what printf prints
// for the same conversion, on the values where the two could part: negative zero, NaN and
// infinities, ties at every digit count, very large and very small magnitudes; and never cuts.
#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "numbers.hpp"

namespace d = amdahl::render::detail;

namespace {

std::string printf_of(const char* format, int digits, double v) {
  std::vector<char> buf(512);
  std::snprintf(buf.data(), buf.size(), format, digits, v);
  return buf.data();
}

const std::vector<double>& edge_values() {
  static const std::vector<double> v = {0.0, -0.0, std::nan(""), -std::nan(""),
                                        std::numeric_limits<double>::infinity(),
                                        -std::numeric_limits<double>::infinity(),
                                        0.5, 1.5, 2.5, -0.5, -2.5, 0.125, 0.375, 1.005, 2.675, 0.045, -0.04,
                                        99.95, 99.5, 1e-7, 123456789.987654321, -98765.4321, 1e21, 1e300,
                                        DBL_MAX, DBL_MIN, 4.9e-324, 1.0 / 3, 2.0 / 3, 100000.0};
  return v;
}

}  // namespace

TEST_CASE("fixed is printf's %.Nf") {
  for (double v : edge_values())
    for (int digits : {0, 1, 2, 3, 4, 6, 17}) {
      INFO(v, " ", digits);
      CHECK(d::fixed(v, digits) == printf_of("%.*f", digits, v));
    }
  CHECK(d::fixed(-0.0, 1) == "-0.0");
  CHECK(d::fixed(0.125, 2) == "0.12");  // the exact binary value, ties to even
  CHECK(d::fixed(DBL_MAX, 2).size() == 312);  // 309 digits, the point and two decimals: nothing cut
}

TEST_CASE("signed_fixed is printf's %+.Nf") {
  for (double v : edge_values())
    for (int digits : {0, 1, 2, 3}) {
      INFO(v, " ", digits);
      CHECK(d::signed_fixed(v, digits) == printf_of("%+.*f", digits, v));
    }
}

TEST_CASE("general is printf's %.Ng") {
  for (double v : edge_values())
    for (int digits : {0, 1, 3, 6, 17}) {
      INFO(v, " ", digits);
      CHECK(d::general(v, digits) == printf_of("%.*g", digits, v));
    }
  CHECK(d::general(2.5, 6) == "2.5");
  CHECK(d::general(1e21, 3) == "1e+21");
}

TEST_CASE("left and right are printf's %-Ns and %Ns, and never cut") {
  for (const std::string s : {"", "a", "stage", "sixteen_chars_ab", "a name longer than the column"})
    for (int width : {0, 1, 7, 16}) {
      INFO(s, " ", width);
      std::vector<char> buf(128);
      std::snprintf(buf.data(), buf.size(), "%*s", width, s.c_str());
      CHECK(d::right(s, static_cast<std::size_t>(width)) == buf.data());
      std::snprintf(buf.data(), buf.size(), "%-*s", width, s.c_str());
      CHECK(d::left(s, static_cast<std::size_t>(width)) == buf.data());
    }
}

TEST_CASE("percentages, speedups and durations keep their printf forms") {
  CHECK(d::pct_whole(0.125) == printf_of("%.*f", 0, 12.5) + "%");
  CHECK(d::pct_whole(0.57) == "57%");
  CHECK(d::pct(0.1234) == "12.3%");
  CHECK(d::speedup(1.5) == "1.500x");
  CHECK(d::speedup(2e12) == "inf");
  CHECK(d::speedup_text(std::numeric_limits<double>::infinity(), 2) == "inf");
  CHECK(d::speedup_text(1.005, 2) == printf_of("%.*f", 2, 1.005) + "x");
  CHECK(d::ms(12345678) == "12.35");
  CHECK(d::ms(50000) == "0.0500");
  CHECK(d::ms_tenths(12345678) == "12.3");
}
