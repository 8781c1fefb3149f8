// Fork handling of the collector core: the prepare handler takes every core lock (in lock
// order) so the child gets consistent tables; the child releases them, forgets the parent's
// threads, records and diagnostics, and starts a part of its own (new pid, start time, part
// path, spill file, flusher).
#include <pthread.h>
#include <unistd.h>

#include "collector_core_internal.hpp"
#include "tsc_clock.hpp"
#include "spill_file.hpp"

namespace amdahl::profiler::detail {
namespace {

void fork_prepare() noexcept {
  Core& c = core();
  c.write_mu.lock();
  c.registry_mu.lock();
  c.strings_mu.lock();
  c.diag_mu.lock();
  c.misc_mu.lock();
  c.hooks_mu.lock();
}

void fork_parent() noexcept {
  Core& c = core();
  c.hooks_mu.unlock();
  c.misc_mu.unlock();
  c.diag_mu.unlock();
  c.strings_mu.unlock();
  c.registry_mu.unlock();
  c.write_mu.unlock();
}

void fork_child() noexcept {
  fork_parent();  // the forking thread held every lock; release them in the child too
  if (!g_enabled) {
    registry_disabled_fork_child();
    return;
  }
  Core& c = core();
  clock_after_fork_child();  // first: now_ns() below reads the clock
  registry_fork_child();
  recording_fork_child();
  c.diags.clear();
  c.thread_names.clear();
  c.pid = static_cast<std::uint32_t>(::getpid());
  c.ppid = static_cast<std::uint32_t>(::getppid());
  c.start_ns = now_ns();
  c.cpu = read_cpu_info();  // the child may have been given other CPUs since
  c.hooks_inherited = !c.hooks.empty();
  try {
    c.part_path = make_part_path(c.part_dir, c.pid, c.start_ns);
  } catch (...) {
    c.part_path.clear();
  }
  reset_write_state();
  spill_after_fork_child();
  flusher_after_fork_child();
  prefaulter_after_fork_child();
  g_recording.store(false, std::memory_order_relaxed);
}

}  // namespace

void install_fork_handlers() noexcept { ::pthread_atfork(fork_prepare, fork_parent, fork_child); }

}  // namespace amdahl::profiler::detail
