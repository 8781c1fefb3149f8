// Which CUDA runtime / driver API calls get an activity record. Recording every API call
// (PyTorch makes several cudaGetDevice / cudaGetLastError / cudaStreamIsCapturing calls per
// kernel) is most of CUPTI's host cost; the analysis needs only the calls that launch or copy
// (their correlation id ties a GPU op to its thread and stage), the calls that block (waits in
// the replay) and the stream/event calls that order streams. Pure functions: no cupti* calls.
#pragma once

#include <optional>
#include <string_view>

namespace amdahl::profiler::cupti {

enum class ApiTrace {
  Launch,  // default: launch, copy, memset, graph launch, synchronisation, event/stream order
  All,     // every runtime and driver API call (the previous behaviour; costs the most)
  None,    // no API records: GPU ops keep their times, but stages and waits cannot be linked
};

// "launch" | "all" | "none" (also "0"/"off" for none); nullopt for anything else.
std::optional<ApiTrace> parse_api_trace(std::string_view text) noexcept;
const char* api_trace_name(ApiTrace t) noexcept;

// True when a call of this CUPTI name ("cudaLaunchKernel_v7000", "cuMemcpyHtoDAsync_v2", ...)
// gets a record in Launch mode.
bool traced_in_launch_mode(std::string_view cupti_name) noexcept;

}  // namespace amdahl::profiler::cupti
