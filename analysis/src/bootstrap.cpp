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
// x % d for a fixed d without a division (Lemire, Kaser, Kurz, "Faster remainder by direct
// computation", 2019: a 128-bit fraction is exact for every 64-bit x).
__extension__ typedef unsigned __int128 u128;  // GCC/Clang; __extension__ keeps -Wpedantic quiet

class Modulus {
 public:
  explicit Modulus(std::uint64_t d) : d_(d), m_(~static_cast<u128>(0) / d + 1) {}
  std::size_t operator()(std::uint64_t x) const {
    const u128 low = m_ * x;  // the fractional part of x / d, modulo 2^128
    const u128 lo = static_cast<u128>(static_cast<std::uint64_t>(low)) * d_;
    const u128 hi = static_cast<u128>(static_cast<std::uint64_t>(low >> 64)) * d_ + (lo >> 64);
    return static_cast<std::size_t>(hi >> 64);
  }

 private:
  std::uint64_t d_;
  u128 m_;
};

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
  // The steps as one flat table (row i: its exposed ns per stage, then its span) so that the
  // random draws read one cache line, not two heap blocks. Sums run in draw order, as always.
  const std::size_t stages = exposed.front().size();
  const std::size_t width = stages + 1;
  std::vector<double> table(n * width);
  for (std::size_t i = 0; i < n; ++i) {
    std::copy(exposed[i].begin(), exposed[i].begin() + static_cast<std::ptrdiff_t>(stages), table.begin() + static_cast<std::ptrdiff_t>(i * width));
    table[i * width + stages] = span_ns[i];
  }
  const Modulus mod(n);
  std::vector<double> values;
  values.reserve(options.resamples);
  std::vector<double> sum(stages);
  for (std::size_t r = 0; r < options.resamples; ++r) {
    std::fill(sum.begin(), sum.end(), 0.0);
    double total = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const double* row = table.data() + mod(rng()) * width;
      for (std::size_t s = 0; s < stages; ++s) sum[s] += row[s];
      total += row[stages];
    }
    for (auto& v : sum) v = total > 0 ? v / total : 0.0;
    values.push_back(statistic(sum));
  }
  const double tail = (1.0 - options.confidence) / 2.0;
  return {exact_quantile(values, tail), exact_quantile(values, 1.0 - tail)};
}

}  // namespace amdahl::analysis
