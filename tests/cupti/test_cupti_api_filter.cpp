// The Launch trace mode's API selection (profiler/src/cupti_api_filter.cpp), checked against
// every runtime and driver call id CUPTI's headers list: the calls the analysis needs (launches,
// copies, sets, graph launches, blocking synchronisation, stream/event ordering) are traced,
// the chatty bookkeeping calls PyTorch makes per kernel are not.
#include <doctest/doctest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "amdahl/analysis/timeline.hpp"
#include "cupti_api_filter.hpp"

using namespace amdahl::profiler::cupti;

namespace {
// "CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000 = 211," -> "cudaLaunchKernel_v7000"
std::vector<std::string> names_in(const std::string& header, const std::string& prefix) {
  std::ifstream in(std::string(AMDAHL_CUPTI_INCLUDE) + "/" + header);
  REQUIRE_MESSAGE(in.good(), "cannot read " << header);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  std::vector<std::string> out;
  const std::regex re(prefix + "([A-Za-z0-9_]+)\\s*=");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it) {
    const std::string n = (*it)[1];
    if (n != "INVALID" && n != "SIZE" && n != "FORCE_INT") out.push_back(n);
  }
  return out;
}
}  // namespace

TEST_CASE("trace mode names parse; anything else is refused") {
  CHECK(parse_api_trace("launch") == ApiTrace::Launch);
  CHECK(parse_api_trace("") == ApiTrace::Launch);
  CHECK(parse_api_trace("all") == ApiTrace::All);
  CHECK(parse_api_trace("none") == ApiTrace::None);
  CHECK(parse_api_trace("off") == ApiTrace::None);
  CHECK_FALSE(parse_api_trace("Launch").has_value());
  CHECK_FALSE(parse_api_trace("some").has_value());
  CHECK(std::string(api_trace_name(ApiTrace::All)) == "all");
}

TEST_CASE("launch mode traces launches, copies, sets, graphs, syncs, stream order and allocations") {
  for (const char* n : {"cudaLaunchKernel_v7000", "cudaLaunchKernel_ptsz_v7000", "cudaLaunchKernelExC_v11060",
                        "cudaLaunchCooperativeKernel_v9000", "cudaLaunchHostFunc_v10000", "cuLaunchKernel",
                        "cuLaunchKernelEx", "cudaMemcpy_v3020", "cudaMemcpyAsync_v3020", "cudaMemcpy2DAsync_v3020",
                        "cuMemcpyHtoDAsync_v2", "cuMemcpyDtoH_v2", "cudaMemsetAsync_v3020", "cuMemsetD8_v2",
                        "cudaGraphLaunch_v10000", "cuGraphLaunch", "cudaStreamSynchronize_v3020",
                        "cudaDeviceSynchronize_v3020", "cudaEventSynchronize_v3020", "cuCtxSynchronize",
                        "cuStreamSynchronize", "cudaStreamWaitEvent_v3020", "cudaEventRecord_v3020",
                        "cuEventRecord", "cudaEventRecord_ptsz_v7000", "cudaEventRecordWithFlags_v11010",
                        "cudaEventRecordWithFlags_ptsz_v11010", "cuEventRecord_ptsz", "cuEventRecordWithFlags",
                        "cuEventRecordWithFlags_ptsz", "cudaDeviceReset_v3020", "cuDevicePrimaryCtxReset_v2",
                        // allocation and free: may wait for the device (implicit waits)
                        "cudaMalloc_v3020", "cudaFree_v3020", "cudaMallocHost_v3020", "cudaFreeHost_v3020",
                        "cudaHostAlloc_v3020", "cuMemAlloc_v2", "cuMemFree_v2", "cudaFreeAsync_v11020",
                        "cuMemHostAlloc", "cudaHostRegister_v4000"})
    CHECK_MESSAGE(traced_in_launch_mode(n), n);
  for (const char* n : {"cudaGetDevice_v3020", "cudaSetDevice_v3020", "cudaGetLastError_v3020",
                        "cudaPeekAtLastError_v3020", "cudaStreamIsCapturing_v10000",
                        "cudaEventQuery_v3020", "cudaStreamQuery_v3020", "cuCtxGetCurrent",
                        "cuCtxSetCurrent", "cuPointerGetAttribute", "cuGetProcAddress_v2", "cudaFuncGetAttributes_v3020",
                        "cudaEventCreateWithFlags_v3020", "cudaGetDeviceProperties_v3020"})
    CHECK_MESSAGE(!traced_in_launch_mode(n), n);
}

TEST_CASE("every call id in CUPTI's headers: the blocking calls the analysis knows are traced") {
  const auto runtime = names_in("cupti_runtime_cbid.h", "CUPTI_RUNTIME_TRACE_CBID_");
  const auto driver = names_in("cupti_driver_cbid.h", "CUPTI_DRIVER_TRACE_CBID_");
  REQUIRE(runtime.size() > 300);
  REQUIRE(driver.size() > 400);
  std::size_t traced_rt = 0, traced_drv = 0, blocking = 0;
  for (const auto& n : runtime) {
    const bool t = traced_in_launch_mode(n);
    traced_rt += t;
    if (amdahl::analysis::is_blocking_cuda_call(n)) {
      ++blocking;
      CHECK_MESSAGE(t, n << " blocks (a replay wait) but is not traced");
    }
    if (n.rfind("cudaLaunch", 0) == 0 || n.rfind("cudaMemcpy", 0) == 0 || n.rfind("cudaMemset", 0) == 0)
      CHECK_MESSAGE(t, n);
  }
  for (const auto& n : driver) {
    const bool t = traced_in_launch_mode(n);
    traced_drv += t;
    if (amdahl::analysis::is_blocking_cuda_call(n)) {
      ++blocking;
      CHECK_MESSAGE(t, n << " blocks (a replay wait) but is not traced");
    }
    if (n.rfind("cuLaunch", 0) == 0 || n.rfind("cuMemcpy", 0) == 0 || n.rfind("cuMemset", 0) == 0) CHECK_MESSAGE(t, n);
  }
  CHECK(blocking >= 10);
  // Event records (CUDA_EVENT activity) join their recording call by correlation id: every
  // variant of the record call is traced, and so are the calls that wait on an event.
  std::size_t event_record_calls = 0;
  for (const auto* names : {&runtime, &driver}) {
    for (const auto& n : *names) {
      if (n.rfind("cudaEventRecord", 0) == 0 || n.rfind("cuEventRecord", 0) == 0 ||
          n.rfind("cudaStreamWaitEvent", 0) == 0 || n.rfind("cuStreamWaitEvent", 0) == 0 ||
          n.rfind("cudaEventSynchronize", 0) == 0 || n.rfind("cuEventSynchronize", 0) == 0) {
        CHECK_MESSAGE(traced_in_launch_mode(n), n);
        event_record_calls += n.find("EventRecord") != std::string::npos;
      }
    }
  }
  // cudaEventRecord(_ptsz), cudaEventRecordWithFlags(_ptsz), cuEventRecord(_ptsz),
  // cuEventRecordWithFlags(_ptsz) in CUDA 13's headers.
  CHECK(event_record_calls >= 8);
  // A selection, not everything: most calls (queries, attributes, allocation) stay untraced.
  MESSAGE("traced in launch mode: " << traced_rt << " of " << runtime.size() << " runtime, " << traced_drv << " of "
                                    << driver.size() << " driver call ids");
  CHECK(traced_rt * 3 < runtime.size());
  CHECK(traced_drv * 3 < driver.size());
  CHECK(traced_rt > 40);
}
