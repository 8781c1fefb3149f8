// Checks of a loaded profile's records for what no amdahl writer produces and no analysis can
// use (issue 18, class 7): a name id past the string table (it read as an empty name), a
// timestamp outside any clock's range, records that span more than ten years (a step at the
// largest time made a 292-year window; one range over the whole 64-bit time put every exported
// event at 0). Each is `corrupt(why)` (load_profile: ProfileError "PATH is corrupt: why").
// NULL timestamps are caught while reading (profile_store.cpp, Loader::ts). Ranges or GPU
// operations that end before they start are not errors here: the analysis leaves them out and
// counts them (analysis/record_checks.hpp).
#pragma once

#include <functional>
#include <string>

#include "amdahl/format/records.hpp"

namespace amdahl::format::detail {

// |t| above this is no clock's time (2^62 ns is 146 years; CLOCK_MONOTONIC counts from boot,
// the Unix epoch in ns reaches it in 2116), and differences of two such times fit in int64.
inline constexpr std::int64_t kMaxAbsTimeNs = std::int64_t{1} << 62;
// No run's records span more than this (ten years); more means a corrupt timestamp.
inline constexpr std::int64_t kMaxSpanNs = 10LL * 365 * 24 * 3600 * 1'000'000'000LL;

void check_records(const RecordSet& rs, const std::function<void(const std::string&)>& corrupt);

}  // namespace amdahl::format::detail
