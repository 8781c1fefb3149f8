// Bisection in log space for the factor that reaches a target speedup (factor_search.hpp).
#include "amdahl/analysis/factor_search.hpp"

#include <cmath>

namespace amdahl::analysis {

FactorSearch factor_for_speedup(const std::function<double(double)>& speedup_at, double target, double limit,
                                const std::vector<std::pair<double, double>>& known,
                                const FactorSearchOptions& options) {
  FactorSearch out;
  constexpr double kSlack = 1e-9;  // a limit equal to the target reaches it
  if (!(limit >= target * (1 - kSlack))) return out;  // NotReachable (NaN limits too)
  double lo = options.min_factor, hi = options.max_factor;
  // Narrow the bracket with the known points: below the target raises lo, at or above lowers hi.
  for (const auto& [k, s] : known) {
    if (k < lo || k > hi) continue;
    if (s >= target) hi = k;
    else lo = k;
  }
  auto at = [&](double k) {
    ++out.evaluations;
    return speedup_at(k);
  };
  bool hi_known = false;
  for (const auto& [k, s] : known)
    if (k == hi && s >= target) hi_known = true;
  if (!hi_known && at(hi) < target) {
    out.outcome = TargetOutcome::BeyondSearch;
    return out;
  }
  bool lo_known = false;
  for (const auto& [k, s] : known)
    if (k == lo) lo_known = true;
  if (!lo_known && lo == options.min_factor && at(lo) >= target) {
    out.outcome = TargetOutcome::Reached;
    out.factor = lo;
    return out;
  }
  while (hi / lo > 1 + options.rel_tolerance && out.evaluations < options.max_evaluations) {
    const double mid = std::sqrt(lo * hi);
    if (at(mid) >= target) hi = mid;
    else lo = mid;
  }
  out.outcome = TargetOutcome::Reached;
  out.factor = hi;
  return out;
}

}  // namespace amdahl::analysis
