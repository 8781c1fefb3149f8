// StageStats over Boost.Accumulators, with exact percentiles from raw samples when few.
#include "amdahl/analysis/stage_stats.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include <boost/accumulators/accumulators.hpp>
#include <boost/accumulators/statistics/count.hpp>
#include <boost/accumulators/statistics/extended_p_square.hpp>
#include <boost/accumulators/statistics/max.hpp>
#include <boost/accumulators/statistics/mean.hpp>
#include <boost/accumulators/statistics/min.hpp>
#include <boost/accumulators/statistics/stats.hpp>
#include <boost/accumulators/statistics/variance.hpp>

namespace amdahl::analysis {

namespace acc = boost::accumulators;

namespace {
const std::array<double, 2> kProbabilities = {0.5, 0.95};
using Accumulator = acc::accumulator_set<
    double, acc::stats<acc::tag::count, acc::tag::mean, acc::tag::variance, acc::tag::min,
                       acc::tag::max, acc::tag::extended_p_square>>;
}  // namespace

struct StageStats::Impl {
  Accumulator acc{acc::tag::extended_p_square::probabilities = kProbabilities};
  std::vector<double> raw;  // kept while count <= kExactSampleLimit
  bool raw_complete = true;
};

StageStats::StageStats() : impl_(std::make_unique<Impl>()) {}
StageStats::~StageStats() = default;
StageStats::StageStats(const StageStats& other) : impl_(std::make_unique<Impl>(*other.impl_)) {}
StageStats& StageStats::operator=(const StageStats& other) {
  if (this != &other) impl_ = std::make_unique<Impl>(*other.impl_);
  return *this;
}
StageStats::StageStats(StageStats&&) noexcept = default;
StageStats& StageStats::operator=(StageStats&&) noexcept = default;

void StageStats::add(double sample) {
  impl_->acc(sample);
  if (impl_->raw_complete) {
    if (impl_->raw.size() < kExactSampleLimit) {
      impl_->raw.push_back(sample);
    } else {
      impl_->raw_complete = false;
      impl_->raw.clear();
      impl_->raw.shrink_to_fit();
    }
  }
}

StatsSummary StageStats::summary() const {
  StatsSummary s;
  const auto& a = impl_->acc;
  s.count = acc::count(a);
  if (s.count == 0) return s;
  s.mean = acc::mean(a);
  s.stddev = std::sqrt(std::max(0.0, acc::variance(a)));
  s.min = acc::min(a);
  s.max = acc::max(a);
  if (impl_->raw_complete) {
    s.median = exact_quantile(impl_->raw, 0.5);
    s.p95 = exact_quantile(impl_->raw, 0.95);
    s.exact_percentiles = true;
  } else {
    s.median = acc::extended_p_square(a)[0];
    s.p95 = acc::extended_p_square(a)[1];
    s.exact_percentiles = false;
  }
  return s;
}

double exact_quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  q = std::clamp(q, 0.0, 1.0);
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return v[lo] + (v[hi] - v[lo]) * frac;
}

}  // namespace amdahl::analysis
