// The SQLite profile (.amdahl): saving a Profile (profile.hpp: a merged RecordSet with its
// metadata), and loading it back. Schema and versioning: docs/profile-format.md. SQL only
// through prepared statements.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>

#include "amdahl/format/profile.hpp"
#include "amdahl/format/records.hpp"

namespace amdahl::format {

// The profile format this amdahl writes (meta format_version), and the oldest one it still
// reads. 1: the first release. 2: the event_records table (a format-1 profile loads with none).
// 3: per-range CPU times (ranges.thread_cpu_ns, process_cpu_ns) and the processes' CPU counts
// (processes.cpus_online, cpus_allowed, omp_threads); older profiles load with -1 and 0.
inline constexpr int kProfileFormatVersion = 3;
inline constexpr int kOldestProfileFormatVersion = 1;

// Bad input: missing file, not SQLite, truncated/corrupt, wrong or newer format version.
// The CLI maps it to exit code 2.
class ProfileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Writes `path`.tmp then renames; refuses to replace an existing file unless `overwrite`.
// Throws ProfileError on failure.
void save_profile(const Profile& profile, const std::string& path, bool overwrite);

struct LoadOptions {
  // Read only the columns the analysis uses (amdahl report / whatif): the other fields keep
  // their defaults (ranges: end_tid = tid, category, kind, depth, parent, unclosed, payload
  // (thread_cpu_ns and process_cpu_ns are read);
  // API calls: api, cbid; GPU ops: context, bytes, src/dst memory kinds, graph id). SQLite's
  // per-column cost is most of the loading time: about a fifth less on a large profile.
  bool analysis_columns_only = false;
  // Called on the calling thread every 65536 rows or so with the rows read so far (all tables,
  // all reading threads): a progress line (cli/src/progress.hpp). Must not throw.
  std::function<void(std::uint64_t rows)> on_rows;
};

// Loads a whole profile. Throws ProfileError with one clear sentence on bad input. A profile of
// an older format still read (kOldestProfileFormatVersion on) loads with empty vectors for the
// tables its format did not have; meta keeps the format_version it was written with.
Profile load_profile(const std::string& path, const LoadOptions& options = {});

// Merges per-process parts into one RecordSet with a single string table (ids remapped,
// range parents re-based to indices in the merged vector).
RecordSet merge_parts(std::vector<RecordSet> parts);  // the parts' records are moved into the result

}  // namespace amdahl::format
