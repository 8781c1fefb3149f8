// The binary part file one process's collector writes at exit (see docs/profile-format.md,
// "Part files"). Little-endian, versioned, sections of fixed field lists; written to a
// temporary name and renamed, so a part under its final name is complete.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

#include "amdahl/format/records.hpp"

namespace amdahl::format {

inline constexpr char kPartMagic[8] = {'A', 'M', 'D', 'P', 'A', 'R', 'T', '1'};
// 2: the event_records section (tag 12). 3: per-range CPU times (RangeRec thread_cpu_ns,
// process_cpu_ns) and the process's CPUs (ProcessRec cpus_online, cpus_allowed, omp_threads) at
// the end of those records. A reader reads every version up to its own (a part of version 1 has
// no event records; one before 3 reads with CPU times -1 and CPU counts 0); a newer part is
// refused.
inline constexpr std::uint32_t kPartVersion = 3;

// Thrown by read_part for a missing, truncated, corrupt or newer-version part.
class PartError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Serialises `rs` into bytes (exposed for tests and for writers that do their own IO).
// `version` (1 to kPartVersion) writes that older layout, leaving out what it did not have (for
// tests of reading older parts).
std::string encode_part(const RecordSet& rs, std::uint32_t version = kPartVersion);
// Parses bytes made by encode_part. Throws PartError, also for a record with an enum value the
// format does not define (check_part_records).
RecordSet decode_part(const std::string& bytes);

// Throws PartError naming the first record whose enum field (range kind, payload kind, API
// kind, GPU op / copy / memory kind, sync kind) is outside its enum (record_check.cpp).
void check_part_records(const RecordSet& rs);

// Writes `path`.tmp then renames it to `path`. Never throws; false and `error` on failure.
bool write_part(const RecordSet& rs, const std::string& path, std::string* error) noexcept;
// A part whose ranges are not held in a RecordSet (the collector's exit write, from its thread
// buffers): `count` ranges, handed one by one, in order, to the sink by `emit`; then `finish`
// (optional) may still change the sections that follow the ranges (marks, diagnostics, ...).
// A count that does not match what `emit` hands over fails the write.
using RangeSink = std::function<void(const RangeRec&)>;
struct RangeStream {
  std::uint64_t count = 0;
  std::function<void(const RangeSink&)> emit;
  std::function<void(RecordSet&)> finish;
};
// write_part with rs.ranges (ignored) replaced by `ranges`. Never throws; false and `error` on
// failure.
bool write_part_streamed(RecordSet& rs, const RangeStream& ranges, const std::string& path,
                         std::string* error) noexcept;
// Reads a part file, through a 1 MiB buffer (the bytes are never held whole beside the records).
// Throws PartError, also for a file that shrinks while read ("truncated").
RecordSet read_part(const std::string& path);

}  // namespace amdahl::format
