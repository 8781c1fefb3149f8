// Bootstrap interval over steps (ratio estimator of exposed fractions).
#include "amdahl/analysis/bootstrap.hpp"

#include <algorithm>
#include <random>

#include "amdahl/analysis/stage_stats.hpp"

namespace amdahl::analysis {
namespace {
std::vector<double> fractions(const std::vector<std::vector<double>>& exposed,
                              const std::vector<double>& span_ns, const std::vector<std::size_t>& pick) {
  const std::size_t stages = exposed.empty() ? 0 : exposed.front().size();
  std::vector<double> sum(stages, 0.0);
  double total = 0;
  for (std::size_t i : pick) {
    for (std::size_t s = 0; s < stages; ++s) sum[s] += exposed[i][s];
    total += span_ns[i];
  }
  for (auto& v : sum) v = total > 0 ? v / total : 0.0;
  return sum;
}
}  // namespace

ConfidenceInterval bootstrap_interval(const std::vector<std::vector<double>>& exposed,
                                      const std::vector<double>& span_ns,
                                      const std::function<double(const std::vector<double>&)>& statistic,
                                      const BootstrapOptions& options) {
  const std::size_t n = exposed.size();
  std::vector<std::size_t> all(n);
  for (std::size_t i = 0; i < n; ++i) all[i] = i;
  if (n < 2 || options.resamples == 0) {
    const double v = statistic(fractions(exposed, span_ns, all));
    return {v, v};
  }
  std::mt19937_64 rng(options.seed);  // mt19937_64's sequence is fixed by the standard
  std::vector<double> values;
  values.reserve(options.resamples);
  std::vector<std::size_t> pick(n);
  for (std::size_t r = 0; r < options.resamples; ++r) {
    for (auto& p : pick) p = static_cast<std::size_t>(rng() % n);
    values.push_back(statistic(fractions(exposed, span_ns, pick)));
  }
  const double tail = (1.0 - options.confidence) / 2.0;
  return {exact_quantile(values, tail), exact_quantile(values, 1.0 - tail)};
}

}  // namespace amdahl::analysis
