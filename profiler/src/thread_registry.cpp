// The thread registry (collector_state.hpp): each recording thread's ThreadState, created on
// its first record and registered in a lock-free slot table that the part writer and the
// flusher read; the thread-local cache of the caller's state and OS thread id; the reset in a
// fork child.
#include <new>

#include "collector_core_internal.hpp"

namespace amdahl::profiler {
namespace detail {

constinit thread_local ThreadState* t_state = nullptr;

namespace {

std::atomic<std::uint32_t> g_thread_count{0};
std::atomic<ThreadState*> g_threads[kMaxThreads];

thread_local std::uint64_t t_tid = 0;
// The forking thread's open push ranges, kept by fork_child for the child's first
// registration of that thread (registering from the atfork handler would start the flusher
// there).
thread_local std::vector<StackEntry>* t_inherited = nullptr;

// The slow path of thread_state(), kept out of line so that the fast path (every NVTX call)
// stays a TLS load and a test, with no register saves.
__attribute__((noinline)) ThreadState* register_thread() noexcept {
  auto* ts = new (std::nothrow) ThreadState();
  if (ts == nullptr) return nullptr;
  ts->tid = os_tid();
  try {
    ts->comm = read_thread_comm(ts->tid);
    ts->stack.reserve(32);
  } catch (...) {
  }
  {
    std::lock_guard<std::mutex> lock(core().registry_mu);
    const std::uint32_t idx = g_thread_count.load(std::memory_order_relaxed);
    if (idx >= kMaxThreads) {
      delete ts;
      ts = nullptr;
    } else {
      ts->index = idx;
      g_threads[idx].store(ts, std::memory_order_release);
      g_thread_count.store(idx + 1, std::memory_order_release);
    }
  }
  if (ts == nullptr) {
    count_diagnostic("collector.threads_dropped");
    return nullptr;
  }
  if (t_inherited != nullptr) {
    ts->stack = std::move(*t_inherited);
    delete t_inherited;
    t_inherited = nullptr;
  }
  t_state = ts;
  t_tid = ts->tid;
  mark_process_recording();
  ensure_flusher();
  return ts;
}

}  // namespace

ThreadState* thread_state_slow() noexcept {
  if (!g_enabled) return nullptr;
  return register_thread();
}

std::uint32_t thread_count() noexcept { return g_thread_count.load(std::memory_order_acquire); }

ThreadState* thread_at(std::uint32_t index) noexcept {
  if (index >= thread_count()) return nullptr;
  return g_threads[index].load(std::memory_order_acquire);
}

std::string thread_comm(const ThreadState* ts) {
  std::lock_guard<std::mutex> lock(core().misc_mu);
  return ts->comm;
}

void set_thread_comm(ThreadState* ts, std::string comm) {
  std::lock_guard<std::mutex> lock(core().misc_mu);
  ts->comm = std::move(comm);
}

void registry_fork_child() noexcept {
  // The parent's open push ranges on this thread still balance the child's pops, but belong
  // to the parent's part.
  delete t_inherited;
  t_inherited = nullptr;
  if (t_state != nullptr && !t_state->stack.empty()) {
    t_inherited = new (std::nothrow) std::vector<StackEntry>();
    if (t_inherited != nullptr) {
      try {
        *t_inherited = t_state->stack;
      } catch (...) {
        t_inherited->clear();
      }
      for (auto& e : *t_inherited) e = StackEntry{-1, nullptr, e.domain, -1};
    }
  }
  const std::uint32_t n = g_thread_count.load(std::memory_order_relaxed);
  for (std::uint32_t i = 0; i < n; ++i) {
    delete g_threads[i].exchange(nullptr, std::memory_order_relaxed);
  }
  g_thread_count.store(0, std::memory_order_relaxed);
  t_state = nullptr;
  t_tid = 0;
}

void registry_disabled_fork_child() noexcept { t_tid = 0; }

}  // namespace detail

std::uint64_t current_tid() noexcept {
  if (detail::t_state != nullptr) return detail::t_state->tid;
  if (detail::t_tid == 0) detail::t_tid = detail::os_tid();
  return detail::t_tid;
}

}  // namespace amdahl::profiler
