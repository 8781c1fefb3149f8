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
  return bootstrap_intervals({{&exposed, &span_ns, statistic}}, options).front();
}

std::vector<ConfidenceInterval> bootstrap_intervals(const std::vector<BootstrapInput>& inputs,
                                                    const BootstrapOptions& options) {
  std::vector<ConfidenceInterval> out(inputs.size());
  const std::size_t n = inputs.empty() ? 0 : inputs.front().exposed->size();
  bool same_n = true;
  for (const BootstrapInput& in : inputs) same_n = same_n && in.exposed->size() == n;
  if (!same_n) {  // different steps: separate draws
    for (std::size_t k = 0; k < inputs.size(); ++k) out[k] = bootstrap_intervals({inputs[k]}, options).front();
    return out;
  }
  if (n < 2 || options.resamples == 0) {
    std::vector<std::size_t> all(n);
    for (std::size_t i = 0; i < n; ++i) all[i] = i;
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      const double v = inputs[k].statistic(fractions(*inputs[k].exposed, *inputs[k].span_ns, all));
      out[k] = {v, v};
    }
    return out;
  }
  std::mt19937_64 rng(options.seed);  // mt19937_64's sequence is fixed by the standard
  // The steps as one flat table (row i: per input, its exposed ns per stage then its span) so
  // that a draw reads one or two cache lines, not two heap blocks per input. Each input's sums
  // run in draw order, as with separate draws.
  std::vector<std::size_t> stages(inputs.size()), offset(inputs.size());
  std::size_t width = 0;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    stages[k] = inputs[k].exposed->front().size();
    offset[k] = width;
    width += stages[k] + 1;
  }
  std::vector<double> table(n * width);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      const std::vector<double>& row = (*inputs[k].exposed)[i];
      double* dst = table.data() + i * width + offset[k];
      std::copy(row.begin(), row.begin() + static_cast<std::ptrdiff_t>(stages[k]), dst);
      dst[stages[k]] = (*inputs[k].span_ns)[i];
    }
  const Modulus mod(n);
  std::vector<std::vector<double>> values(inputs.size());
  for (auto& v : values) v.reserve(options.resamples);
  std::vector<std::vector<double>> sum(inputs.size());
  std::vector<double> total(inputs.size());
  for (std::size_t k = 0; k < inputs.size(); ++k) sum[k].resize(stages[k]);
  // One resample's n draws, in draw order, a block at a time: the block's indices are drawn
  // first and its rows prefetched, so that the random reads of a table larger than the caches
  // overlap instead of each waiting for memory (same draws, same order, same sums).
  constexpr std::size_t kBlock = 32;
  std::size_t picks[kBlock];
  auto for_each_draw = [&](auto&& add) {
    for (std::size_t j = 0; j < n; j += kBlock) {
      const std::size_t m = std::min(kBlock, n - j);
      for (std::size_t b = 0; b < m; ++b) {
        picks[b] = mod(rng()) * width;
        __builtin_prefetch(table.data() + picks[b]);
        __builtin_prefetch(table.data() + picks[b] + width - 1);  // a row may straddle two lines
      }
      for (std::size_t b = 0; b < m; ++b) add(table.data() + picks[b]);
    }
  };
  for (std::size_t r = 0; r < options.resamples; ++r) {
    for (auto& v : sum) std::fill(v.begin(), v.end(), 0.0);
    std::fill(total.begin(), total.end(), 0.0);
    if (inputs.size() == 1) {  // the common case, without the loop over inputs
      double* s0 = sum[0].data();
      const std::size_t st = stages[0];
      double t0 = 0;
      for_each_draw([&](const double* row) {
        for (std::size_t s = 0; s < st; ++s) s0[s] += row[s];
        t0 += row[st];
      });
      total[0] = t0;
    } else {
      for_each_draw([&](const double* row) {
        for (std::size_t k = 0; k < inputs.size(); ++k) {
          const double* part = row + offset[k];
          double* sk = sum[k].data();
          for (std::size_t s = 0; s < stages[k]; ++s) sk[s] += part[s];
          total[k] += part[stages[k]];
        }
      });
    }
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      for (auto& v : sum[k]) v = total[k] > 0 ? v / total[k] : 0.0;
      values[k].push_back(inputs[k].statistic(sum[k]));
    }
  }
  const double tail = (1.0 - options.confidence) / 2.0;
  for (std::size_t k = 0; k < inputs.size(); ++k)
    out[k] = {exact_quantile(values[k], tail), exact_quantile(values[k], 1.0 - tail)};
  return out;
}

}  // namespace amdahl::analysis
