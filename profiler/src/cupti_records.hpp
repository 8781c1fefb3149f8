// Conversion of CUPTI activity records (the structs of cupti_activity.h) into amdahl's plain
// records (format::GpuOpRec, ApiCallRec, SyncRec, EventRecordRec, DeviceRec) and counted
// diagnostics. Calls no
// cupti* function, so it is unit-tested with synthetic records and no GPU (tests/cupti/).
#pragma once

#include <cupti_activity.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "amdahl/format/records.hpp"

namespace amdahl::profiler::cupti {

// Gives names string ids. The collector forwards to the core's intern(); tests use a table.
class Interner {
 public:
  virtual ~Interner() = default;
  virtual format::StrId intern(std::string_view s) noexcept = 0;
};

// Resolves a runtime or driver API callback id to its CUPTI name (e.g. "cudaMemcpy_v3020").
// The collector passes a function that calls cuptiGetCallbackName; nullptr or an empty answer
// gives the name "cbid:<n>". Must be thread-safe and return static storage.
using ApiNameFn = const char* (*)(format::ApiKind api, std::uint32_t cbid) noexcept;

// "cudaMemcpy_v3020" -> "cudaMemcpy", "cuMemcpyHtoD_v2" -> "cuMemcpyHtoD"; "_ptsz" suffixes
// and everything else stay.
std::string api_display_name(std::string_view cupti_name);

format::CopyKind map_copy_kind(std::uint32_t cupti_copy_kind) noexcept;
format::MemKind map_memory_kind(std::uint32_t cupti_memory_kind) noexcept;
format::SyncKind map_sync_kind(std::uint32_t cupti_sync_type) noexcept;
const char* overhead_kind_name(std::uint32_t cupti_overhead_kind) noexcept;

// What the converter saw besides the records it produced: problems and CUPTI's own overhead.
// Keys follow the diagnostics convention ("cupti.<what>").
struct ConvertStats {
  std::uint64_t converted = 0;        // records turned into plain records
  std::uint64_t no_timestamp = 0;     // start == end == 0: CUPTI could not time it (skipped)
  std::uint64_t bad_interval = 0;     // end < start (skipped)
  std::map<std::uint32_t, std::uint64_t> unknown_kinds;  // CUpti_ActivityKind -> count (skipped)
  std::map<std::string, std::uint64_t> overhead_ns;      // overhead kind name -> total ns
  std::map<std::string, std::uint64_t> overhead_records; // overhead kind name -> count
  std::uint64_t devices = 0;          // DEVICE records seen

  // The stats as diagnostics (key, count), e.g. ("cupti.unknown_kind.31", 2).
  std::vector<std::pair<std::string, std::uint64_t>> as_diagnostics() const;
};

// Converts one record at a time, appending to a RecordSet. Caches interned kernel and API names
// so the interner (which takes a lock) is called once per distinct name. Not thread-safe: the
// collector serialises calls.
class ActivityConverter {
 public:
  ActivityConverter(std::uint32_t pid, Interner& interner, ApiNameFn name_fn) noexcept
      : pid_(pid), interner_(interner), api_name_(name_fn) {}

  // Appends the plain form of `rec` to `out`. Returns false (and counts why) when the record
  // was skipped: unknown kind, no timestamps, end before start.
  bool convert(const CUpti_Activity* rec, format::RecordSet& out);

  const ConvertStats& stats() const noexcept { return stats_; }
  // CUPTI numbers correlations afresh after each cuptiFinalize (a sampled run attaches again per
  // window): the ids of records converted after this call continue after the largest id so far,
  // so that (pid, correlation id) stays unique in the profile. Call it once CUPTI detached and
  // every buffer of the window was converted.
  void new_correlation_epoch() noexcept { corr_base_ = corr_max_; }
  // Returns the stats gathered since the last call and starts counting afresh.
  ConvertStats take_stats() noexcept;

 private:
  template <class Rec>
  format::GpuOpRec gpu_op(const Rec& r, format::GpuOpKind kind);
  std::uint32_t correlation(std::uint32_t id) noexcept {
    if (id == 0) return 0;  // 0: none
    const std::uint32_t v = corr_base_ + id;
    if (v > corr_max_) corr_max_ = v;
    return v;
  }
  bool convert_kernel(const CUpti_ActivityKernel10& k, format::RecordSet& out);
  bool convert_memcpy(const CUpti_ActivityMemcpy6& m, format::RecordSet& out);
  bool convert_memcpy_p2p(const CUpti_ActivityMemcpyPtoP4& m, format::RecordSet& out);
  bool convert_memset(const CUpti_ActivityMemset4& m, format::RecordSet& out);
  bool convert_api(const CUpti_ActivityAPI& a, format::RecordSet& out);
  bool convert_sync(const CUpti_ActivitySynchronization2& s, format::RecordSet& out);
  bool convert_cuda_event(const CUpti_ActivityCudaEvent2& e, format::RecordSet& out);
  bool convert_overhead(const CUpti_ActivityOverhead3& o);
  bool convert_device(const CUpti_ActivityDevice5& d, format::RecordSet& out);
  bool check_interval(std::uint64_t start, std::uint64_t end) noexcept;
  format::StrId kernel_name(const char* name);
  format::StrId lookup_api_name(format::ApiKind api, std::uint32_t cbid);

  std::uint32_t pid_;
  Interner& interner_;
  ApiNameFn api_name_;
  ConvertStats stats_;
  // Kernel names are shared by all records of a kernel: cache by pointer, checked by content.
  std::unordered_map<const char*, std::pair<std::string, format::StrId>> kernel_names_;
  std::unordered_map<std::uint64_t, format::StrId> api_names_;
  std::uint32_t corr_base_ = 0, corr_max_ = 0;
};

// Orders GPU ops, API calls and syncs by start time (stable: equal starts keep arrival order),
// event records by correlation id (the order of the record calls), and drops duplicate device
// records (same pid and device id), keeping the first.
void order_records(format::RecordSet& rs);

}  // namespace amdahl::profiler::cupti
