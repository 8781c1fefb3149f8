// The ring all-reduce model and the projection of a profile to another number of ranks
// (ranks.hpp: ring_allreduce_ns, project_ranks).
#include <algorithm>

#include "amdahl/analysis/errors.hpp"
#include "amdahl/analysis/ranks.hpp"

namespace amdahl::analysis {

double ring_allreduce_ns(double bytes, std::size_t ranks, double bytes_per_s, double fixed_ns) {
  if (ranks <= 1 || bytes_per_s <= 0) return fixed_ns;
  const double m = static_cast<double>(ranks);
  return fixed_ns + 2.0 * (m - 1.0) / m * bytes / bytes_per_s * 1e9;
}

RankProjection project_ranks(const RankAnalysis& ranks, std::size_t to_ranks,
                             std::optional<double> bytes_per_s) {
  if (to_ranks < 1) throw UsageError("project_ranks: at least 1 rank is needed");
  if (ranks.rows.empty() || ranks.transfer_ns <= 0) {
    throw UsageError(problems::RanksNeedCommunication{});
  }
  if (ranks.comm_bytes <= 0) {
    throw UsageError(problems::RanksNeedBytes{});
  }
  RankProjection p;
  p.from_ranks = ranks.world;
  p.to_ranks = to_ranks;
  p.bytes = static_cast<double>(ranks.comm_bytes);
  p.measured_ns = ranks.transfer_ns;
  if (bytes_per_s) {
    if (*bytes_per_s <= 0) throw UsageError("project_ranks: the bandwidth must be positive");
    p.bytes_per_s = *bytes_per_s;
  } else if (p.from_ranks >= 2) {
    // All of the measured collective taken as transfer (fixed cost 0).
    const double m = static_cast<double>(p.from_ranks);
    p.bytes_per_s = 2.0 * (m - 1.0) / m * p.bytes / (p.measured_ns / 1e9);
    p.bandwidth_measured = true;
  } else {
    throw UsageError(problems::RanksNeedBandwidth{});
  }
  p.fixed_ns = std::max(0.0, p.measured_ns - (ring_allreduce_ns(p.bytes, p.from_ranks, p.bytes_per_s, 0)));
  p.projected_ns = ring_allreduce_ns(p.bytes, to_ranks, p.bytes_per_s, p.fixed_ns);
  p.factor = p.projected_ns > 0 ? p.measured_ns / p.projected_ns : 1.0;
  return p;
}

}  // namespace amdahl::analysis
