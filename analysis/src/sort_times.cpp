// Timestamp sorting for the replay graph's cut points: run merging, else an LSD radix sort.
#include "amdahl/analysis/sort_times.hpp"

#include <algorithm>
#include <cstddef>

namespace amdahl::analysis {

// A lane's cut points arrive as a few ascending runs (API calls, marks, waits, segments, syncs,
// each in time order): those are merged pairwise, one sequential pass per level (on the
// 10-million-event profile of docs/benchmarks.md, a ninth of the radix sort's time). Otherwise an
// LSD radix sort on their offset from the smallest (11-bit digits, as many passes as the span
// needs), several times faster than std::sort for millions of cuts.
namespace {

// Merges v in place when it is at most kMaxRuns ascending runs; false (v untouched) otherwise.
bool merge_runs(std::vector<std::int64_t>& v) {
  constexpr std::size_t kMaxRuns = 16;
  std::vector<std::size_t> bounds{0};
  for (std::size_t i = 1; i < v.size(); ++i)
    if (v[i] < v[i - 1]) {
      if (bounds.size() == kMaxRuns) return false;
      bounds.push_back(i);
    }
  bounds.push_back(v.size());
  if (bounds.size() == 2) return true;  // already sorted
  std::vector<std::int64_t> tmp(v.size());
  std::vector<std::int64_t>* src = &v;
  std::vector<std::int64_t>* dst = &tmp;
  while (bounds.size() > 2) {
    std::vector<std::size_t> next{0};
    for (std::size_t k = 0; k + 1 < bounds.size(); k += 2) {
      const auto b = src->begin();
      if (k + 2 < bounds.size()) {
        std::merge(b + bounds[k], b + bounds[k + 1], b + bounds[k + 1], b + bounds[k + 2], dst->begin() + bounds[k]);
        next.push_back(bounds[k + 2]);
      } else {  // an odd run out: carried to the next level as it is
        std::copy(b + bounds[k], b + bounds[k + 1], dst->begin() + bounds[k]);
        next.push_back(bounds[k + 1]);
      }
    }
    bounds.swap(next);
    std::swap(src, dst);
  }
  if (src != &v) v.swap(tmp);
  return true;
}

}  // namespace

void sort_times(std::vector<std::int64_t>& v) {
  if (v.size() < 4096) {
    std::sort(v.begin(), v.end());
    return;
  }
  if (merge_runs(v)) return;
  const auto [mn, mx] = std::minmax_element(v.begin(), v.end());
  const std::int64_t lo = *mn;
  const std::uint64_t span = static_cast<std::uint64_t>(*mx) - static_cast<std::uint64_t>(lo);
  constexpr int kBits = 11;
  constexpr std::size_t kBuckets = std::size_t{1} << kBits;
  std::vector<std::int64_t> tmp(v.size());
  std::vector<std::size_t> count(kBuckets);
  std::vector<std::int64_t>* src = &v;
  std::vector<std::int64_t>* dst = &tmp;
  for (int shift = 0; shift < 64 && (span >> shift) != 0; shift += kBits) {
    std::fill(count.begin(), count.end(), 0);
    auto digit = [&](std::int64_t x) {
      return static_cast<std::size_t>(((static_cast<std::uint64_t>(x) - static_cast<std::uint64_t>(lo)) >> shift) & (kBuckets - 1));
    };
    for (std::int64_t x : *src) ++count[digit(x)];
    std::size_t sum = 0;
    for (std::size_t& c : count) { const std::size_t k = c; c = sum; sum += k; }
    for (std::int64_t x : *src) (*dst)[count[digit(x)]++] = x;
    std::swap(src, dst);
  }
  if (src != &v) v.swap(tmp);
}

}  // namespace amdahl::analysis
