// The API selection of the Launch trace mode (see cupti_api_filter.hpp): by name prefix, so new
// versioned entry points (_v2, _ptsz, _ptds) are covered without a list of callback ids.
#include "cupti_api_filter.hpp"

#include <array>

namespace amdahl::profiler::cupti {

std::optional<ApiTrace> parse_api_trace(std::string_view t) noexcept {
  if (t == "launch" || t.empty()) return ApiTrace::Launch;
  if (t == "all") return ApiTrace::All;
  if (t == "none" || t == "0" || t == "off") return ApiTrace::None;
  return std::nullopt;
}

const char* api_trace_name(ApiTrace t) noexcept {
  switch (t) {
    case ApiTrace::Launch: return "launch";
    case ApiTrace::All: return "all";
    case ApiTrace::None: return "none";
  }
  return "launch";
}

namespace {
bool starts_with(std::string_view s, std::string_view p) noexcept { return s.substr(0, p.size()) == p; }
}  // namespace

bool traced_in_launch_mode(std::string_view n) noexcept {
  // Calls that put work on a stream, or order work between streams, or reset the device (the
  // collector flushes there), or allocate and free memory (cudaFree and friends can wait for
  // the device to drain: implicit waits in the replay).
  static constexpr std::array<std::string_view, 24> kPrefixes = {
      "cudaLaunch",          "cuLaunch",             // kernels (ExC, cooperative, host functions)
      "cudaMemcpy",          "cuMemcpy",             // copies, synchronous and async
      "cudaMemset",          "cuMemset",
      "cudaGraphLaunch",     "cuGraphLaunch",
      "cudaStreamWaitEvent", "cuStreamWaitEvent",
      "cudaEventRecord",     "cuEventRecord",
      "cudaMemPrefetchAsync", "cuMemPrefetchAsync",
      "cudaDeviceReset",     "cuDevicePrimaryCtxReset",
      "cudaMalloc",          "cuMemAlloc",           // cudaMalloc, cudaMallocHost, cudaMallocAsync...
      "cudaFree",            "cuMemFree",            // cudaFree, cudaFreeHost, cudaFreeAsync...
      "cudaHostAlloc",       "cuMemHostAlloc",
      "cudaHostRegister",    "cuMemHostRegister"};
  for (std::string_view p : kPrefixes) {
    if (starts_with(n, p)) return true;
  }
  // Blocking calls (stream, event, device, context synchronize): the waits of the replay.
  return n.find("Synchronize") != std::string_view::npos;
}

}  // namespace amdahl::profiler::cupti
