// The open / close / detach / re-attach state machine of sampled GPU tracing, behind a small
// interface to CUPTI (CuptiOps) so that it is tested with a fake on a machine without a GPU
// (tests/profiler/test_gpu_trace_control.cpp). cupti_collector.cpp implements CuptiOps with the
// real cupti* calls.
//
// CUPTI's per-launch cost stays while it is attached, even with every activity kind disabled
// (-18% throughput measured on the H200, docs/cupti.md), so a closed window detaches CUPTI with
// cuptiFinalize, which CUPTI allows only from a callback: close() disables the kinds and arms
// the API-exit callbacks, and the next CUDA call's exit (on_api_exit) finalizes. open() after
// that attaches again (subscribe, clock, buffer callbacks, kinds, API selection).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>

namespace amdahl::profiler {

// The CUPTI calls the state machine makes. Each returns false when CUPTI refused.
struct CuptiOps {
  virtual ~CuptiOps() = default;
  // After a cuptiFinalize: subscribe, register the timestamp and buffer callbacks again.
  virtual bool attach() = 0;
  // Enable the activity kinds and the runtime/driver API selection.
  virtual void enable_tracing() = 0;
  // Flush (forced, after syncing the context) and disable the kinds but DEVICE.
  virtual void disable_tracing() = 0;
  // Enable the runtime and driver API callback domains so that on_api_exit comes; false when
  // they could not be (CUPTI then stays attached, collecting nothing).
  virtual bool arm_detach() = 0;
  // Back to the few callbacks an attached, idle CUPTI keeps (a window opened before the detach).
  virtual void disarm_detach() = 0;
  // cuptiFinalize (from an API-exit callback).
  virtual bool finalize() = 0;
};

enum class TraceState {
  Idle,           // attached, activity kinds off (before the first window)
  Tracing,        // attached, recording
  DetachPending,  // window closed: cuptiFinalize at the next API exit
  Detached,       // CUPTI finalized; open() attaches again
  Off,            // CUPTI failed to attach again: no more GPU records in this process
};

class TraceControl {
 public:
  TraceControl(CuptiOps& ops, bool tracing_from_start) noexcept
      : ops_(ops), state_(tracing_from_start ? TraceState::Tracing : TraceState::Idle) {}

  void open() noexcept;
  void close() noexcept;
  // From the API-exit callback: cheap unless a detach is pending.
  void on_api_exit() noexcept {
    if (pending_.load(std::memory_order_acquire)) finish_detach();
  }
  // At process exit: whether CUPTI is attached (and so may be flushed and torn down).
  bool attached() const noexcept;
  TraceState state() const noexcept;
  std::uint32_t attaches() const noexcept { return attaches_.load(); }
  std::uint32_t detaches() const noexcept { return detaches_.load(); }
  // Time spent opening, closing and detaching (attach, enable, the forced flush at the close,
  // cuptiFinalize), in microseconds: the part of a window's cost that is not per launch.
  std::uint64_t control_us() const noexcept { return control_ns_.load() / 1000; }

 private:
  void finish_detach() noexcept;

  CuptiOps& ops_;
  mutable std::mutex mu_;
  TraceState state_;
  std::atomic<bool> pending_{false};
  std::atomic<std::uint32_t> attaches_{0}, detaches_{0};
  std::atomic<std::uint64_t> control_ns_{0};
};

}  // namespace amdahl::profiler
