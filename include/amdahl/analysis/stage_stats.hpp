// StageStats: running statistics of per-step samples (mean, median, p95, population stddev,
// min, max). Boost.Accumulators does the running moments behind this type; percentiles are
// exact (from the raw samples) up to kExactSampleLimit samples, P^2 estimates beyond.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace amdahl::analysis {

struct StatsSummary {
  std::size_t count = 0;
  double mean = 0, median = 0, p95 = 0, stddev = 0, min = 0, max = 0;
  bool exact_percentiles = true;
};

class StageStats {
 public:
  static constexpr std::size_t kExactSampleLimit = 10000;

  StageStats();
  ~StageStats();
  StageStats(const StageStats& other);
  StageStats& operator=(const StageStats& other);
  StageStats(StageStats&&) noexcept;
  StageStats& operator=(StageStats&&) noexcept;

  void add(double sample);
  StatsSummary summary() const;  // all zeros when empty

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Exact quantile of raw samples (linear interpolation between order statistics, q in [0, 1]).
double exact_quantile(std::vector<double> samples, double q);

}  // namespace amdahl::analysis
