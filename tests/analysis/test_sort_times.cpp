// sort_times against std::sort: small input, few ascending runs (the merge), many runs (the
// radix sort), negative times, duplicates and the full int64 span.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "amdahl/analysis/sort_times.hpp"

using amdahl::analysis::sort_times;

namespace {

// `runs` ascending runs of random length, values drawn from [lo, hi].
std::vector<std::int64_t> runs_of(std::mt19937_64& rng, std::size_t n, std::size_t runs, std::int64_t lo,
                                  std::int64_t hi) {
  std::uniform_int_distribution<std::int64_t> value(lo, hi);
  std::vector<std::int64_t> v(n);
  for (auto& x : v) x = value(rng);
  std::uniform_int_distribution<std::size_t> cut(0, n);
  std::vector<std::size_t> bounds{0, n};
  for (std::size_t r = 1; r < runs; ++r) bounds.push_back(cut(rng));
  std::sort(bounds.begin(), bounds.end());
  for (std::size_t k = 0; k + 1 < bounds.size(); ++k) std::sort(v.begin() + bounds[k], v.begin() + bounds[k + 1]);
  return v;
}

void check_sorts(std::vector<std::int64_t> v) {
  std::vector<std::int64_t> want = v;
  std::sort(want.begin(), want.end());
  sort_times(v);
  CHECK(v == want);
}

}  // namespace

TEST_CASE("sort_times sorts like std::sort, whatever the input's shape") {
  std::mt19937_64 rng(7);
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  for (std::size_t n : {0, 1, 5, 4095, 4096, 20000}) {
    for (std::size_t runs : {1, 2, 3, 15, 16, 17, 40}) {
      CAPTURE(n);
      CAPTURE(runs);
      check_sorts(runs_of(rng, n, runs, 0, 1'000'000'000'000));  // nanosecond times
      check_sorts(runs_of(rng, n, runs, -50, 50));               // negatives, many duplicates
      check_sorts(runs_of(rng, n, runs, kMin, kMax));             // the whole span
    }
  }
}

TEST_CASE("sort_times on descending input (one run per element: the radix path)") {
  std::vector<std::int64_t> v(10000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = 5000 - static_cast<std::int64_t>(i);
  check_sorts(v);
}

TEST_CASE("sort_times keeps equal values at run boundaries") {
  std::vector<std::int64_t> v;
  for (int r = 0; r < 5; ++r)
    for (int i = 0; i < 2000; ++i) v.push_back(i / 3);  // runs touching at equal values
  check_sorts(v);
}
