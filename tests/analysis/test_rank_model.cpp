// The ring all-reduce model and the projection to M ranks (ranks.hpp), on figures set by hand.
#include <doctest/doctest.h>

#include "amdahl/analysis/errors.hpp"
#include "amdahl/analysis/ranks.hpp"
#include "amdahl/render/finding_text.hpp"

using namespace amdahl::analysis;

TEST_CASE("ring all-reduce: fixed cost plus 2(M-1)/M of the bytes over the bandwidth") {
  // 1 GB over 1 GB/s: 4 ranks send 2 * 3/4 of it, 1.5 s, plus 2 ms.
  CHECK(ring_allreduce_ns(1e9, 4, 1e9, 2e6) == doctest::Approx(1.5e9 + 2e6));
  CHECK(ring_allreduce_ns(1e9, 2, 1e9, 0) == doctest::Approx(1e9));
  CHECK(ring_allreduce_ns(1e9, 1, 1e9, 5) == doctest::Approx(5));  // one rank sends nothing
  // The per-rank volume tends to twice the buffer as M grows.
  CHECK(ring_allreduce_ns(1e9, 1000, 1e9, 0) == doctest::Approx(2e9 * 999 / 1000));
}

namespace {
RankAnalysis measured(std::size_t world, double collective_ns, std::int64_t bytes) {
  RankAnalysis ra;
  ra.world = world;
  ra.rows.resize(world);
  ra.transfer_ns = collective_ns;
  ra.comm_bytes = bytes;
  return ra;
}
}  // namespace

TEST_CASE("projection from one rank: the measured collective is the fixed cost") {
  // 10 ms at 1 rank; 262144 bytes at 62.5 MB/s to 4 ranks: + 2 * 3/4 * 4.194 ms = 16.29 ms.
  const RankProjection p = project_ranks(measured(1, 10e6, 262144), 4, 62.5e6);
  CHECK(p.fixed_ns == doctest::Approx(10e6));
  CHECK(p.projected_ns == doctest::Approx(10e6 + 1.5 * 262144 / 62.5e6 * 1e9));
  CHECK(p.factor == doctest::Approx(10e6 / p.projected_ns));
  CHECK(amdahl::render::to_text(p).find("2(M-1)/M") != std::string::npos);
  CHECK_THROWS_AS(project_ranks(measured(1, 10e6, 262144), 4, std::nullopt), UsageError);
  CHECK_THROWS_AS(project_ranks(measured(1, 10e6, 0), 4, 1e9), UsageError);
}

TEST_CASE("projection from several ranks: the bandwidth is measured when not given") {
  // 2 ranks, 1e6 bytes in 1 ms: bw = 1e6 / 1e-3 = 1 GB/s with no fixed cost; 4 ranks: 1.5 ms.
  const RankProjection p = project_ranks(measured(2, 1e6, 1000000), 4, std::nullopt);
  CHECK(p.bandwidth_measured);
  CHECK(p.bytes_per_s == doctest::Approx(1e9));
  CHECK(p.fixed_ns == doctest::Approx(0).epsilon(1e-6));
  CHECK(p.projected_ns == doctest::Approx(1.5e6));
  CHECK(p.factor == doctest::Approx(1 / 1.5));
  // Given a bandwidth, the rest of the measured collective is its fixed cost.
  const RankProjection q = project_ranks(measured(2, 3e6, 1000000), 4, 1e9);
  CHECK(q.fixed_ns == doctest::Approx(2e6));
  CHECK(q.projected_ns == doctest::Approx(3.5e6));
}
