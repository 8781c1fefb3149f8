// Classic Amdahl's law over exposed fractions: S = 1 / ((1 - sum p) + sum p / s). Pure
// functions; a factor of +infinity means the stage takes no time (the limit).
#pragma once

#include <optional>
#include <vector>

namespace amdahl::analysis {

struct StageSpeedup {
  double fraction = 0;  // exposed share p of the wall time, in [0, 1]
  double factor = 1;    // s > 0; > 1 faster, < 1 slower, +inf = removed
};

// Whole-run speedup. Throws UsageError for factor <= 0 or NaN, or fractions outside [0, 1]
// or summing above 1 (beyond 1e-9). Returns +inf when every second is removed.
double amdahl_speedup(const std::vector<StageSpeedup>& stages);

// One stage: 1 / ((1 - p) + p / s).
double amdahl_speedup(double fraction, double factor);

// The limit s -> infinity: 1 / (1 - p) (+inf when p == 1).
double amdahl_limit(double fraction);

// The factor stage p needs for an overall speedup `target` (> 0): s = p / (1/T - (1 - p)).
// nullopt when no factor suffices (T >= 1 / (1 - p)), or when p == 0 and T != 1.
std::optional<double> factor_for_target(double fraction, double target);

}  // namespace amdahl::analysis
