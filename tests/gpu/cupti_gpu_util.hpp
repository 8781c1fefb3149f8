// Helpers for the CUPTI GPU tests: skip without a device, run commands (amdahl profile / report,
// the test workload), read JSON, and attribute a profile's GPU ops to the innermost `amdahl`-domain
// range open on the launching thread at the launching API call (by correlation id).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "amdahl/format/profile_store.hpp"

namespace amdahl::gpu_cupti_test {

// Prints "SKIPPED: no CUDA device" and exits 77 when cudaGetDeviceCount fails or returns 0.
void skip_without_device();

// $AMDAHL_BUILD_DIR (set by ctest), else the current directory's parent.
std::string build_dir();
// A fresh directory under $TMPDIR (or /tmp).
std::string make_temp_dir(const std::string& tag);

// Runs argv (no shell), stdout to `stdout_path` when not empty; returns the exit code, or 128+N
// when it died of signal N.
int run(const std::vector<std::string>& argv, const std::string& stdout_path = {});

nlohmann::json read_json(const std::string& path);

// Profiles the test workload: `amdahl profile -o DIR/run.amdahl -- cupti_workload --mode MODE
// --json DIR/events.json [extra]`. Returns the exit code of amdahl profile.
int profile_workload(const std::string& dir, const std::string& mode, const std::vector<std::string>& extra = {});

// For each gpu op: the API call with the same pid and correlation id (runtime preferred), or -1.
std::vector<std::int64_t> launching_calls(const format::RecordSet& rs);

// The innermost push/pop range of domain `amdahl` on (pid, tid) that encloses t, or -1.
std::int64_t innermost_amdahl_range(const format::RecordSet& rs, std::uint32_t pid, std::uint64_t tid,
                                    std::int64_t t);

// The stage name of each GPU op by correlation ("" when no API call or no enclosing range).
std::vector<std::string> stages_by_correlation(const format::RecordSet& rs);

}  // namespace amdahl::gpu_cupti_test
