// The sampled-tracing state machine (see gpu_trace_control.hpp).
#include "gpu_trace_control.hpp"

#include <chrono>

namespace amdahl::profiler {

namespace {
// Adds the time from its construction to its destruction to `total`.
class Timed {
 public:
  explicit Timed(std::atomic<std::uint64_t>& total) noexcept : total_(total), start_(std::chrono::steady_clock::now()) {}
  ~Timed() {
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start_).count();
    total_.fetch_add(static_cast<std::uint64_t>(ns > 0 ? ns : 0), std::memory_order_relaxed);
  }
  Timed(const Timed&) = delete;
  Timed& operator=(const Timed&) = delete;

 private:
  std::atomic<std::uint64_t>& total_;
  std::chrono::steady_clock::time_point start_;
};
}  // namespace

void TraceControl::open() noexcept {
  const Timed timed(control_ns_);
  std::lock_guard<std::mutex> lock(mu_);
  switch (state_) {
    case TraceState::Idle:
      ops_.enable_tracing();
      state_ = TraceState::Tracing;
      break;
    case TraceState::DetachPending:  // no API call came between close and open: stay attached
      pending_.store(false, std::memory_order_release);
      ops_.disarm_detach();
      ops_.enable_tracing();
      state_ = TraceState::Tracing;
      break;
    case TraceState::Detached:
      if (!ops_.attach()) {
        state_ = TraceState::Off;
        break;
      }
      attaches_.fetch_add(1);
      ops_.enable_tracing();
      state_ = TraceState::Tracing;
      break;
    case TraceState::Tracing:
    case TraceState::Off:
      break;
  }
}

void TraceControl::close() noexcept {
  const Timed timed(control_ns_);
  std::lock_guard<std::mutex> lock(mu_);
  if (state_ != TraceState::Tracing) return;
  ops_.disable_tracing();
  if (ops_.arm_detach()) {
    state_ = TraceState::DetachPending;
    pending_.store(true, std::memory_order_release);
  } else {
    state_ = TraceState::Idle;
  }
}

void TraceControl::finish_detach() noexcept {
  const Timed timed(control_ns_);
  std::lock_guard<std::mutex> lock(mu_);
  if (state_ != TraceState::DetachPending) return;
  pending_.store(false, std::memory_order_release);
  if (ops_.finalize()) {
    detaches_.fetch_add(1);
    state_ = TraceState::Detached;
  } else {
    ops_.disarm_detach();
    state_ = TraceState::Idle;
  }
}

bool TraceControl::attached() const noexcept {
  std::lock_guard<std::mutex> lock(mu_);
  return state_ != TraceState::Detached && state_ != TraceState::Off;
}

TraceState TraceControl::state() const noexcept {
  std::lock_guard<std::mutex> lock(mu_);
  return state_;
}

}  // namespace amdahl::profiler
