// Sorting of timestamps for the replay graph's cut points (analysis/src/sort_times.cpp).
#pragma once

#include <cstdint>
#include <vector>

namespace amdahl::analysis {

// Sorts v ascending (the same result as std::sort). Input made of at most 16 ascending runs,
// as a host lane's cut points are, is merged run by run; other input is radix sorted.
void sort_times(std::vector<std::int64_t>& v);

}  // namespace amdahl::analysis
