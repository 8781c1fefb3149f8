// The factor search behind "factor for 1.25x overall" (factor_search.hpp): checked on the
// classic law, whose answer is known in closed form, and on a capped curve like a replay's
// (a stage whose removal leaves another chain holding the step).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "amdahl/analysis/amdahl_law.hpp"
#include "amdahl/analysis/factor_search.hpp"

using namespace amdahl::analysis;

TEST_CASE("factor search: matches the classic closed form") {
  for (const double p : {0.3, 0.5, 0.87}) {
    for (const double target : {1.1, 1.25, 1.4}) {
      const auto exact = factor_for_target(p, target);
      const FactorSearch fs = factor_for_speedup([&](double k) { return amdahl_speedup(p, k); }, target,
                                                 amdahl_limit(p));
      INFO("p " << p << " target " << target);
      if (!exact) {
        CHECK(fs.outcome == TargetOutcome::NotReachable);
        continue;
      }
      REQUIRE(fs.outcome == TargetOutcome::Reached);
      REQUIRE(fs.factor);
      CHECK(*fs.factor >= *exact * (1 - 1e-9));        // it reaches the target ...
      CHECK(*fs.factor <= *exact * 1.006);              // ... and is the smallest to 0.5%
      CHECK(amdahl_speedup(p, *fs.factor) >= target * (1 - 1e-9));
    }
  }
}

TEST_CASE("factor search: a capped curve below the target is not reachable, without evaluations") {
  // The replay of a pipelined run: removing the stage leaves a chain of 22 ms in a 23 ms step.
  const auto capped = [](double k) { return 23.0 / std::max(22.0, 3.0 + 20.0 / k); };
  const FactorSearch fs = factor_for_speedup(capped, 1.25, capped(1e9));
  CHECK(fs.outcome == TargetOutcome::NotReachable);
  CHECK_FALSE(fs.factor);
  CHECK(fs.evaluations == 0);
  // While classic Amdahl, from the stage's 87% share, would say 1.3x.
  CHECK(factor_for_target(20.0 / 23.0, 1.25).has_value());
}

TEST_CASE("factor search: known points narrow the bracket; beyond the range is said") {
  const auto f = [](double k) { return amdahl_speedup(0.5, k); };
  const FactorSearch with = factor_for_speedup(f, 1.25, 2.0, {{2.0, f(2.0)}, {4.0, f(4.0)}});
  const FactorSearch without = factor_for_speedup(f, 1.25, 2.0);
  REQUIRE(with.factor);
  REQUIRE(without.factor);
  CHECK(*with.factor == doctest::Approx(*without.factor).epsilon(0.006));
  CHECK(with.evaluations < without.evaluations);
  // Target just under the limit: needs more than the 1000x the search goes to.
  const FactorSearch far = factor_for_speedup(f, 1.9999, 2.0);
  CHECK(far.outcome == TargetOutcome::BeyondSearch);
  CHECK_FALSE(far.factor);
  // Already reached at factor 1 (a target of 1).
  const FactorSearch one = factor_for_speedup(f, 1.0, 2.0);
  REQUIRE(one.factor);
  CHECK(*one.factor == doctest::Approx(1.0));
}
