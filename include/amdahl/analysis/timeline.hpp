// The analyzer's view of a profile: every host thread is a lane cut into non-overlapping
// segments labelled by the innermost stage or wait open there (innermost wins; a parent stage
// owns only what its children leave), plus the step ranges and produce/consume marks. Built
// once from a RecordSet; attribution, GPU attribution and (later) the replay read it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "amdahl/analysis/stage_rules.hpp"
#include "amdahl/format/records.hpp"

namespace amdahl::analysis {

using StageId = std::int32_t;
// Segment labels besides stage ids (>= 0).
inline constexpr StageId kLabelOther = -1;    // in no stage: `other`
inline constexpr StageId kLabelWait = -2;     // inside an amdahl `wait` range
inline constexpr StageId kLabelGpuWait = -3;  // a blocking CUDA sync in no stage or wait range

struct Segment {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  StageId label = kLabelOther;  // innermost of stage and wait ranges (or Other / GpuWait)
  StageId stage = kLabelOther;  // innermost stage range, ignoring waits (Other when none)
  std::int64_t range = -1;      // index in RecordSet::ranges of the range owning the label
};

struct ItemMark {
  std::int64_t ts_ns = 0;
  std::int64_t item = 0;
};

struct Interval {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
};

struct Lane {
  std::uint32_t pid = 0;
  std::uint64_t tid = 0;
  std::string name;
  std::vector<Segment> segments;       // sorted, non-overlapping, gaps inside are `other`
  std::vector<Interval> steps;         // step ranges opened on this lane, sorted by start, disjoint
  std::int64_t nested_steps = 0;       // step ranges dropped because they overlap an earlier one
  std::vector<Interval> wait_ranges;   // amdahl `wait` ranges, sorted by start
  std::vector<Interval> blocking_syncs;  // blocking CUDA calls made on this lane
  std::vector<ItemMark> produces;      // sorted by ts
  std::vector<ItemMark> consumes;      // sorted by ts
  std::int64_t stage_ranges = 0;       // number of stage ranges on this lane
  std::int64_t first_ns = 0, last_ns = 0;  // extent of its stage/wait/step ranges

  // The segment containing t (start <= t < end), or nullptr.
  const Segment* segment_at(std::int64_t t) const;
};

struct Timeline {
  const format::RecordSet* records = nullptr;
  std::vector<std::string> stage_names;  // StageId -> name; canonical stages first
  std::vector<Lane> lanes;
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::size_t> lane_of;  // (pid, tid) -> lane
  std::vector<RangeClass> range_class;   // per RecordSet::ranges entry
  bool has_item_marks = false;           // any produce or consume mark with an integer payload
  // Per RecordSet::gpu_ops entry: the index of its launching API call (same pid and
  // correlation id; the first such call in the records), or kNoApiCall. Computed once here;
  // GPU attribution and the replay graph read it.
  std::vector<std::uint32_t> api_of_op;

  StageId stage_id(const std::string& name) const;  // -1 when unknown
  StageId canonical_id(std::string_view name) const { return stage_id(std::string(name)); }
};

// True for CUDA API names that block the calling thread until GPU work completes
// (cudaStreamSynchronize, cudaDeviceSynchronize, cudaEventSynchronize, cuStreamSynchronize,
// cuCtxSynchronize, synchronous cudaMemcpy / cuMemcpy*; a `_vNNNN` suffix is ignored).
bool is_blocking_cuda_call(std::string_view name);

inline constexpr std::uint32_t kNoApiCall = 0xffffffffu;

// For every GPU op of `records`, the index of the first API call with its pid and correlation
// id, or kNoApiCall (what Timeline::api_of_op holds).
std::vector<std::uint32_t> launching_api_calls(const format::RecordSet& records);

// Builds the lanes. `records` must outlive the Timeline.
Timeline build_timeline(const format::RecordSet& records, const StageRules& rules);

}  // namespace amdahl::analysis
