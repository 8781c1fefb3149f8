// Classic Amdahl's law: projections, limits and the inverse.
#include "amdahl/analysis/amdahl_law.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "amdahl/analysis/errors.hpp"

namespace amdahl::analysis {
namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kEps = 1e-9;

void check_fraction(double p) {
  if (!(p >= -kEps && p <= 1 + kEps)) throw UsageError("fraction " + std::to_string(p) + " is outside [0, 1]");
}
}  // namespace

double amdahl_speedup(const std::vector<StageSpeedup>& stages) {
  double sum_p = 0, scaled = 0;
  for (const auto& s : stages) {
    check_fraction(s.fraction);
    if (!(s.factor > 0)) throw UsageError("speed-up factor must be > 0, got " + std::to_string(s.factor));
    const double p = std::clamp(s.fraction, 0.0, 1.0);
    sum_p += p;
    scaled += std::isinf(s.factor) ? 0.0 : p / s.factor;
  }
  if (sum_p > 1 + kEps) throw UsageError("exposed fractions sum to more than 1");
  const double denom = std::max(0.0, 1.0 - sum_p) + scaled;
  return denom <= 0 ? kInf : 1.0 / denom;
}

double amdahl_speedup(double fraction, double factor) {
  return amdahl_speedup(std::vector<StageSpeedup>{{fraction, factor}});
}

double amdahl_limit(double fraction) { return amdahl_speedup(fraction, kInf); }

std::optional<double> factor_for_target(double p, double target) {
  check_fraction(p);
  if (!(target > 0) || std::isinf(target)) throw UsageError("target speed-up must be a positive number");
  p = std::clamp(p, 0.0, 1.0);
  if (p <= 0) {
    if (std::abs(target - 1.0) < kEps) return 1.0;
    return std::nullopt;
  }
  const double denom = 1.0 / target - (1.0 - p);
  if (denom <= 0) return std::nullopt;  // T >= 1 / (1 - p)
  return p / denom;
}

}  // namespace amdahl::analysis
