// Bootstrap intervals over steps: resample steps with replacement, recompute the statistic on
// each resample, and take the central percentiles. Deterministic (fixed seed, own index draw)
// so the same profile always gives the same interval.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace amdahl::analysis {

struct BootstrapOptions {
  std::size_t resamples = 1000;
  std::uint64_t seed = 0x616d6461686cULL;  // "amdahl"
  double confidence = 0.95;
};

struct ConfidenceInterval {
  double low = 0;
  double high = 0;
};

// `exposed[step][stage]` is exposed ns per stage in each step span, `span_ns[step]` the span's
// length. Each resample's fractions are sum(exposed) / sum(span) over the drawn steps (a ratio
// estimator, so long steps weigh more, like in the whole-window figure); `statistic` maps those
// fractions to the projected value. With fewer than 2 steps the interval is the point value.
ConfidenceInterval bootstrap_interval(const std::vector<std::vector<double>>& exposed,
                                      const std::vector<double>& span_ns,
                                      const std::function<double(const std::vector<double>&)>& statistic,
                                      const BootstrapOptions& options = {});

struct BootstrapInput {
  const std::vector<std::vector<double>>* exposed;  // as bootstrap_interval's
  const std::vector<double>* span_ns;
  std::function<double(const std::vector<double>&)> statistic;
};

// bootstrap_interval for each input, from one sequence of draws: inputs with the same number of
// steps draw the same steps anyway (same seed), so the results are those of separate calls.
std::vector<ConfidenceInterval> bootstrap_intervals(const std::vector<BootstrapInput>& inputs,
                                                    const BootstrapOptions& options = {});

}  // namespace amdahl::analysis
