// The CUPTI collector's orchestration of activity collection, behind an interface to CUPTI (as
// Kineto's CuptiActivityApi): which activity kinds are on, which ones CUPTI refused (logged and
// counted once, never retried), the API-record selection, the tear-down, and the CuptiOps of the
// sampled-tracing state machine (gpu_trace_control.hpp: attach again, open and close a window,
// detach). CuptiActivityApi's real implementation is in cupti_collector.cpp, the only code that
// calls cupti*; tests/cupti/test_gpu_sampling.cpp drives this orchestration with a fake.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "cupti_api_filter.hpp"
#include "gpu_trace_control.hpp"

namespace amdahl::profiler::cupti {

// The activity kinds the collector enables, in this order (the real API maps each to CUPTI's
// CUpti_ActivityKind). CONCURRENT_KERNEL also records kernels launched by CUDA graphs (node-level
// tracing is CUPTI's default as long as GRAPH_TRACE stays off) and by cudaLaunchKernelExC /
// cuLaunchKernelEx; INTERNAL_LAUNCH_API gives launches the driver makes outside any public API
// call their API record. CUDA_EVENT gives one record per cudaEventRecord / cuEventRecord* call
// (which event, on which stream, by which call), so a wait on an event (SYNCHRONIZATION) joins
// the work the event stands for; it is optional: a CUPTI that refuses it costs those records only.
enum class Kind : std::uint8_t {
  Device, ConcurrentKernel, Memcpy, Memcpy2, Memset, Runtime, Driver, InternalLaunchApi, Synchronization,
  CudaEvent, Overhead,
};
inline constexpr std::size_t kKindCount = 11;

// Launch mode: the API calls given a record one call id at a time.
struct LaunchApis {
  std::uint32_t runtime = 0;
  std::uint32_t driver = 0;
};

// The CUPTI calls of the orchestration. Each returns false (or the failing call's name) when
// CUPTI refused; `error` gets CUPTI's message.
struct CuptiActivityApi {
  virtual ~CuptiActivityApi() = default;
  // CUPTI's number for the kind (the logs and the diagnostic key of a refused kind).
  virtual int kind_code(Kind k) const noexcept = 0;
  virtual bool enable(Kind k, const char** error) noexcept = 0;  // cuptiActivityEnable
  virtual void disable(Kind k) noexcept = 0;                      // cuptiActivityDisable
  virtual void flush(bool forced) noexcept = 0;                   // cuptiActivityFlushAll
  // Launch mode's per-call-id API records (`late`: CUDA already runs; see cupti_collector.cpp).
  virtual LaunchApis enable_launch_apis(bool driver, bool late) noexcept = 0;
  // The timestamp, thread-id and buffer callbacks: nullptr, or the name of the call refused.
  virtual const char* register_callbacks(const char** error) noexcept = 0;
  // cuptiSubscribe and the reset / context-teardown callbacks; unsubscribe forgets it.
  virtual bool subscribe() noexcept = 0;
  virtual void unsubscribe() noexcept = 0;
  virtual bool subscribed() const noexcept = 0;
  // The runtime and driver callback domains on (the next API exit finalizes) or back off.
  virtual bool arm_detach() noexcept = 0;
  virtual void disarm_detach() noexcept = 0;
  // cuptiFinalize (the subscriber is gone with it).
  virtual bool finalize() noexcept = 0;
  // Waits for the current context's work (so a flush finds complete records).
  virtual void sync_context() noexcept = 0;
};

// How a problem is counted into the part's diagnostics (count_diagnostic in the collector).
using CountDiagnostic = void (*)(std::string_view key, std::uint64_t n) noexcept;

class ActivityControl final : public CuptiOps {
 public:
  ActivityControl(CuptiActivityApi& api, ApiTrace trace, bool driver, bool resubscribe, CountDiagnostic count) noexcept
      : api_(api), trace_(trace), driver_(driver), resubscribe_(resubscribe), count_(count) {}

  // Enables the activity kinds (all of them, or only DEVICE when `devices_only`), and the API
  // records the trace mode asks for. Kinds already enabled, or refused before, are left alone.
  void enable_kinds(bool devices_only, bool late) noexcept;
  // Disables every kind but DEVICE (and the one-by-one API records), after a forced flush.
  void disable_kinds() noexcept;
  // The end: forced flush, every kind off, no subscriber.
  void tear_down() noexcept;

  // CuptiOps (the sampled-tracing state machine).
  bool attach() override;
  void enable_tracing() override;
  void disable_tracing() override;
  bool arm_detach() override { return api_.arm_detach(); }
  void disarm_detach() override { api_.disarm_detach(); }
  bool finalize() override;

  ApiTrace trace() const noexcept { return trace_; }
  LaunchApis launch_apis() const noexcept { return launch_; }
  bool enabled(Kind k) const noexcept { return (enabled_mask_ & bit(k)) != 0; }

 private:
  static constexpr std::uint32_t bit(Kind k) noexcept { return 1U << static_cast<unsigned>(k); }

  CuptiActivityApi& api_;
  ApiTrace trace_;
  bool driver_;       // driver API records (AMDAHL_CUPTI_DRIVER)
  bool resubscribe_;  // subscribe again at each attach (AMDAHL_CUPTI_SUBSCRIBE)
  CountDiagnostic count_;
  std::uint32_t enabled_mask_ = 0;  // bit k: kind k enabled
  std::uint32_t failed_mask_ = 0;   // bit k: CUPTI refused kind k (logged once, not retried)
  LaunchApis launch_;
};

}  // namespace amdahl::profiler::cupti
