// The prefaulter (chunked_buffer.hpp, "Look-ahead"): one thread per process that faults in the
// pages the recording threads will write next, so that a push/pop pair on the hot path is
// stores into present pages. A buffer's owner asks through prefault_kick() every half
// look-ahead (a few thousand records at first, ~37 000 once a buffer holds 4 MiB); the thread
// sleeps on a futex in between. MADV_POPULATE_WRITE (Linux 5.14) faults pages in without
// writing them, so it may run beside the owner's stores; where the kernel lacks it (EINVAL) the
// look-ahead turns itself off and pages fault on first touch as before. AMDAHL_PREFAULT=0 turns
// it off (measurements). Started by the first kick (a buffer nearing its first mapped chunk,
// ~7 000 ranges), so a process that records little never starts it; again in a forked child.
#include <errno.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

#include "collector_config.hpp"
#include "collector_state.hpp"
#include "log.hpp"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace amdahl::profiler::detail {
namespace {

std::atomic<bool> g_prefault_on{false};       // set at load from the config
std::atomic<bool> g_prefault_started{false};
std::atomic<std::uint32_t> g_kick{0};
std::atomic<std::uint32_t> g_prefault_generation{0};  // bumped in the fork child

// At most this much is populated in one call: MADV_POPULATE_WRITE holds the process's mmap
// lock for reading, and a long hold would delay another thread's mmap/munmap.
constexpr std::size_t kPopulateStep = std::size_t{256} << 10;

void* prefaulter_main(void*) noexcept {
  const std::uint32_t generation = g_prefault_generation.load(std::memory_order_acquire);
  ::pthread_setname_np(::pthread_self(), "amdahl-prefault");
  for (;;) {
    const std::uint32_t seen = g_kick.load(std::memory_order_acquire);
    if (generation != g_prefault_generation.load(std::memory_order_acquire) || exit_written() ||
        !g_prefault_on.load(std::memory_order_relaxed)) {
      break;
    }
    const std::uint32_t n = thread_count();
    for (std::uint32_t t = 0; t < n; ++t) {
      ThreadState* ts = thread_at(t);
      if (ts == nullptr) continue;
      ts->ranges.prefault();
      ts->marks.prefault();
      ts->cpu.prefault();
    }
    g_kick.wait(seen, std::memory_order_acquire);
  }
  g_prefault_started.store(false, std::memory_order_release);
  return nullptr;
}

}  // namespace

bool prefault_enabled() noexcept { return g_prefault_on.load(std::memory_order_relaxed); }

void prefault_kick() noexcept {
  if (!g_prefault_started.load(std::memory_order_relaxed)) ensure_prefaulter();  // the first kick
  g_kick.fetch_add(1, std::memory_order_release);
  g_kick.notify_one();
}

void prefault_range(void* addr, std::size_t bytes) noexcept {
  static const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE) > 0 ? ::sysconf(_SC_PAGESIZE) : 4096);
  std::uintptr_t begin = reinterpret_cast<std::uintptr_t>(addr) & ~(page - 1);
  const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(addr) + bytes + page - 1) & ~(page - 1);
  while (begin < end) {
    const std::size_t len = end - begin < kPopulateStep ? end - begin : kPopulateStep;
    if (::madvise(reinterpret_cast<void*>(begin), len, MADV_POPULATE_WRITE) != 0) {
      const int err = errno;
      if (err == EINTR || err == EAGAIN) continue;
      if (err == EINVAL) {  // the kernel has no MADV_POPULATE_WRITE: first touch faults, as before
        if (g_prefault_on.exchange(false, std::memory_order_relaxed)) {
          log_message(LogLevel::Info, "prefault: MADV_POPULATE_WRITE not supported here; pages fault on first write");
        }
      }
      return;  // ENOMEM and the like: the owner's own fault will say what it says
    }
    begin += len;
  }
}

void prefault_configure(bool on) noexcept { g_prefault_on.store(on, std::memory_order_relaxed); }

void ensure_prefaulter() noexcept {
  if (!collector_enabled() || !g_prefault_on.load(std::memory_order_relaxed)) return;
  if (g_prefault_started.exchange(true)) return;
  const int rc = start_background_thread(prefaulter_main, nullptr, std::size_t{256} << 10);
  if (rc != 0) {
    // Without the thread nobody would fault pages in: the owners fault their own, as before.
    g_prefault_on.store(false, std::memory_order_relaxed);
    log_message(LogLevel::Info, "prefault: cannot start the thread (error %d); pages fault on first write", rc);
  }
}

void prefaulter_after_fork_child() noexcept {
  g_prefault_generation.fetch_add(1, std::memory_order_acq_rel);
  g_prefault_started.store(false, std::memory_order_relaxed);
}

}  // namespace amdahl::profiler::detail
