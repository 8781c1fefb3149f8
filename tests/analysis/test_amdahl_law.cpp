// Classic Amdahl math: the textbook case, limits, the inverse, multi-stage, bad input; factor
// and --speedup parsing.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "amdahl/analysis/amdahl_law.hpp"
#include "amdahl/analysis/errors.hpp"
#include "amdahl/analysis/whatif.hpp"

using namespace amdahl::analysis;

TEST_CASE("textbook: two 50 ms halves, one made 10x faster -> 1.818x") {
  CHECK(amdahl_speedup(0.5, 10.0) == doctest::Approx(1.0 / 0.55).epsilon(1e-12));
  CHECK(amdahl_speedup(0.5, 10.0) == doctest::Approx(1.818).epsilon(1e-3));
}

TEST_CASE("limits") {
  CHECK(amdahl_limit(0.5) == doctest::Approx(2.0));
  CHECK(amdahl_limit(0.9) == doctest::Approx(10.0));
  CHECK(amdahl_limit(0.0) == doctest::Approx(1.0));
  CHECK(std::isinf(amdahl_limit(1.0)));
  CHECK(amdahl_speedup(0.25, 1.0) == doctest::Approx(1.0));
  CHECK(amdahl_speedup(0.5, 0.5) == doctest::Approx(1.0 / 1.5));  // slower stage
  CHECK(amdahl_speedup(0.3, std::numeric_limits<double>::infinity()) == doctest::Approx(1.0 / 0.7));
}

TEST_CASE("multi-stage") {
  // 40% at 2x and 30% at 3x: 1 / (0.3 + 0.2 + 0.1) = 1.6667
  CHECK(amdahl_speedup({{0.4, 2.0}, {0.3, 3.0}}) == doctest::Approx(1.0 / 0.6));
  CHECK(amdahl_speedup({}) == doctest::Approx(1.0));
  CHECK_THROWS_AS(amdahl_speedup({{0.7, 2.0}, {0.6, 2.0}}), UsageError);
  CHECK_THROWS_AS(amdahl_speedup(0.5, 0.0), UsageError);
  CHECK_THROWS_AS(amdahl_speedup(0.5, -2.0), UsageError);
  CHECK_THROWS_AS(amdahl_speedup(1.5, 2.0), UsageError);
}

TEST_CASE("inverse: factor needed for a target") {
  auto f = factor_for_target(0.5, 1.818181818181818);
  REQUIRE(f);
  CHECK(*f == doctest::Approx(10.0).epsilon(1e-9));
  f = factor_for_target(0.8, 2.0);  // 1/2 = 0.2 + 0.8/s -> s = 8/3
  REQUIRE(f);
  CHECK(*f == doctest::Approx(8.0 / 3.0));
  CHECK(amdahl_speedup(0.8, *f) == doctest::Approx(2.0));
  CHECK(factor_for_target(0.3, 1.0).value() == doctest::Approx(1.0));
  CHECK(factor_for_target(0.5, 0.8).value() < 1.0);  // a slowdown meets a target below 1
  CHECK_THROWS_AS(factor_for_target(0.5, 0.0), UsageError);
}

TEST_CASE("no factor suffices when T >= 1 / (1 - p)") {
  CHECK_FALSE(factor_for_target(0.5, 2.0).has_value());  // exactly the limit
  CHECK_FALSE(factor_for_target(0.5, 3.0).has_value());
  CHECK_FALSE(factor_for_target(0.0, 1.1).has_value());
  CHECK(factor_for_target(0.5, 1.999).has_value());
}

