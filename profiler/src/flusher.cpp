// The background flusher: one thread per process that rewrites the part while the process
// runs, so a process that ends without running exit handlers (os._exit in a forked DataLoader
// worker, SIGKILL) still leaves the records of its last flush. Started lazily by the first
// recording thread (in a forked child by the child's first recording thread, never from the
// atfork handler). It looks at a lock-free activity count, writes only when something changed,
// looks every AMDAHL_FLUSH_MS (default 500; 0 disables), but never sooner than 20x the duration
// of the last write, so big parts cost < 5% of a core. (It used to double the interval after
// each look: on the H200, PyTorch DataLoader workers then lost everything after their first
// second, since the next flush came after they had exited.)
#include <pthread.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>

#include "collector_config.hpp"
#include "collector_state.hpp"
#include "log.hpp"
#include "tsc_clock.hpp"

namespace amdahl::profiler::detail {
namespace {

constexpr std::int64_t kMaxIntervalMs = 10'000;
constexpr std::int64_t kWriteCostFactor = 20;

std::atomic<bool> g_started{false};
std::atomic<std::uint32_t> g_generation{0};  // bumped in the fork child: an old thread's id

void sleep_ms(std::int64_t ms) noexcept {
  timespec ts{static_cast<time_t>(ms / 1000), static_cast<long>((ms % 1000) * 1'000'000)};
  while (::clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) != 0) {
  }
}

void* flusher_main(void* arg) noexcept {
  const auto first = static_cast<std::int64_t>(reinterpret_cast<std::intptr_t>(arg));
  const std::uint32_t generation = g_generation.load(std::memory_order_acquire);
  ::pthread_setname_np(::pthread_self(), "amdahl-flush");
  const std::int64_t interval = first;
  std::uint64_t last_activity = 0;
  std::int64_t last_write_ns = now_ns();
  std::int64_t write_cost_ms = 0;
  for (;;) {
    sleep_ms(interval);
    if (generation != g_generation.load(std::memory_order_acquire) || exit_written()) break;
    clock_recheck();  // keeps the TSC clock on CLOCK_MONOTONIC (tsc_clock.hpp)
    evict_spilled_records();  // memory stays near the budget however much is spilled
    const std::int64_t now = now_ns();
    if (now - last_write_ns < kWriteCostFactor * write_cost_ms * 1'000'000) continue;
    const std::uint64_t activity = activity_count();
    // Part hooks (CUPTI) add records the activity count does not see: look at least every
    // kMaxIntervalMs when there are hooks (the writer skips the file if nothing changed).
    const bool hooks_due =
        have_part_hooks() && now - last_write_ns >= kMaxIntervalMs * 1'000'000;
    if (activity != last_activity || hooks_due) {
      last_activity = activity;
      write_part(WriteKind::Flush);
      last_write_ns = now_ns();
      write_cost_ms = (last_write_ns - now) / 1'000'000;
    }
  }
  return nullptr;
}

}  // namespace

void ensure_flusher() noexcept {
  if (!collector_enabled() || g_started.load(std::memory_order_relaxed)) return;
  if (g_started.exchange(true)) return;
  const std::int64_t first = collector_config().flush_ms;
  if (first == 0) return;
  const int rc = start_background_thread(flusher_main, reinterpret_cast<void*>(static_cast<std::intptr_t>(first)),
                                         std::size_t{1} << 20);
  if (rc != 0) {
    log_message(LogLevel::Warn,
                "cannot start the flusher thread (error %d): parts are written at exit only", rc);
  }
}

void flusher_after_fork_child() noexcept {
  g_generation.fetch_add(1, std::memory_order_acq_rel);
  g_started.store(false, std::memory_order_relaxed);
}

}  // namespace amdahl::profiler::detail
