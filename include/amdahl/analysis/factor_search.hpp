// The factor a stage alone needs for an overall speedup, found by bisection over any
// non-decreasing speedup-versus-factor function (the replay's, docs/analysis.md). Pure: the
// function is given, so the search is tested on the classic law, whose answer is known.
#pragma once

#include <functional>
#include <optional>
#include <utility>
#include <vector>

namespace amdahl::analysis {

enum class TargetOutcome {
  Reached,       // `factor` is the smallest factor (to the tolerance) that reaches the target
  BeyondSearch,  // the stage's limit reaches it, but no factor up to max_factor does
  NotReachable,  // even removing the stage (its limit) does not reach it
};

struct FactorSearch {
  TargetOutcome outcome = TargetOutcome::NotReachable;
  std::optional<double> factor;  // set when Reached
  int evaluations = 0;           // calls of speedup_at
};

struct FactorSearchOptions {
  double min_factor = 1.0;     // the search range [min_factor, max_factor]
  double max_factor = 1e3;
  double rel_tolerance = 0.005;  // stop when hi / lo < 1 + tolerance
  int max_evaluations = 40;
};

// `speedup_at(k)`: the overall speedup with the stage k times faster, non-decreasing in k.
// `limit`: the speedup with the stage removed. `known`: points (factor, speedup) already
// computed (e.g. 2x, 4x, 10x), used to narrow the bracket without new evaluations. Returns the
// smallest k in [min_factor, max_factor] with speedup_at(k) >= target (the upper end of the
// final bracket, so the answer always reaches the target).
FactorSearch factor_for_speedup(const std::function<double(double)>& speedup_at, double target, double limit,
                                const std::vector<std::pair<double, double>>& known = {},
                                const FactorSearchOptions& options = {});

}  // namespace amdahl::analysis
