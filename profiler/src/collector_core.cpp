// The collector core's orchestration: the process-wide state (enabled flag, pid, part path,
// memory budget), the load (configuration, part directory, fork/exit/crash handlers) and the
// ends of a process (exit, _exit, exec), diagnostics, part hooks, and the data the part
// writer and the flusher read. Its other jobs have files of their own: thread_registry.cpp,
// string_table.cpp, recording.cpp (the NVTX entry points), collector_fork.cpp; settings come
// from collector_config.cpp, the part from part_writer.cpp.
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>

#include "collector_core_internal.hpp"
#include "elf_probe.hpp"
#include "log.hpp"
#include "proc_info.hpp"
#include "spill_file.hpp"
#include "tsc_clock.hpp"

namespace amdahl::profiler {
namespace detail {

Core* g_core = nullptr;
bool g_enabled = false;
std::atomic<bool> g_recording{false};

std::string make_part_path(const std::string& dir, std::uint32_t pid, std::int64_t ns) {
  return dir + "/part-" + std::to_string(pid) + "-" + std::to_string(ns) + ".amdpart";
}

namespace {

bool g_static_host = false;  // loaded into a statically linked program: off, said once
std::atomic<std::int64_t> g_bytes_in_use{0};
std::atomic<std::uint64_t> g_diag_changes{0};  // count_diagnostic calls
std::int64_t g_bytes_budget = std::int64_t{1024} << 20;
bool g_clock_forced_monotonic = false;  // AMDAHL_CLOCK=monotonic: said in the part's diagnostics

bool usable_dir(const char* dir) noexcept {
  struct stat st {};
  return ::stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && ::access(dir, W_OK | X_OK) == 0;
}

void at_exit_handler() { write_part(WriteKind::Exit); }

__attribute__((constructor)) void collector_load() noexcept {
  // A statically linked host loaded us with its own static dlopen: a second libc, no TLS for
  // this library (the first record would die of SIGSEGV). Stay off, touching nothing: NVTX's
  // calls stay its own no-ops and the program runs as it does alone.
  if (process_linkage() == Linkage::Static) {
    g_static_host = true;
    char exe[512];
    const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    detail::log_message(detail::LogLevel::Warn,
                        "%s (pid %d) is statically linked: the collector cannot run inside it and stays off in "
                        "this process, which runs unobserved (no ranges from it)",
                        n > 0 ? exe : "this program", static_cast<int>(::getpid()));
    return;
  }
  // Every AMDAHL_* setting, read once (collector_config.hpp).
  const CollectorConfig& cfg = collector_config();
  // The clock first: every timestamp from here on (start_ns included) comes from it.
  if (cfg.clock_invalid) {
    detail::log_message(detail::LogLevel::Warn, "AMDAHL_CLOCK=%s is not auto or monotonic: using auto",
                        cfg.clock_invalid->c_str());
  }
  clock_init(cfg.clock_monotonic);
  g_clock_forced_monotonic = cfg.clock_monotonic;
  if (clock_source() == ClockSource::Tsc) {
    detail::log_message(detail::LogLevel::Info, "clock: TSC at %llu kHz (trusted by %s), checked against CLOCK_MONOTONIC",
                        static_cast<unsigned long long>(clock_tsc_khz()), tsc_trust_name(clock_tsc_trust()));
  } else {
    detail::log_message(detail::LogLevel::Info, "clock: CLOCK_MONOTONIC (%s)",
                        cfg.clock_monotonic ? "AMDAHL_CLOCK=monotonic" : "the TSC is not known to be invariant here");
  }
  g_core = new (std::nothrow) Core();
  if (g_core == nullptr) return;
  Core& c = core();
  string_table_init();
  c.pid = static_cast<std::uint32_t>(::getpid());
  c.ppid = static_cast<std::uint32_t>(::getppid());
  c.start_ns = now_ns();
  c.cpu = read_cpu_info();
  g_bytes_budget = cfg.memory_budget_bytes;
  prefault_configure(cfg.prefault);
  recording_configure(cfg);
  const char* dir = cfg.part_dir.c_str();
  if (*dir != '\0' && usable_dir(dir)) {
    try {
      c.part_dir = dir;
      c.part_path = make_part_path(c.part_dir, c.pid, c.start_ns);
      g_enabled = true;
    } catch (...) {
      g_enabled = false;
    }
  }
  // Past the memory budget: spill to the part directory (default) or drop (spill_file.hpp).
  if (g_enabled && cfg.on_full_invalid) {
    detail::log_message(detail::LogLevel::Warn, "AMDAHL_ON_FULL=%s is not spill or drop: spilling",
                        cfg.on_full_invalid->c_str());
  }
  if (g_enabled) spill_configure(dir, cfg.spill);
  install_fork_handlers();
  if (g_enabled) recording_enable(cfg);
  if (g_enabled) {
    std::atexit(at_exit_handler);
    install_crash_handlers();
    register_exit_hook();
  }
}

// _exit()/_Exit() through the preloaded exit hook: the final part, if this process recorded.
// Not in a vfork child (it shares the parent's memory; fork handlers did not run there, so the
// pid differs) and not in a child that never recorded (a fork on the way to exec).
void on_quick_exit(int) noexcept {
  if (!g_enabled || g_core == nullptr) return;
  if (static_cast<std::uint32_t>(::getpid()) != core().pid) return;
  if (!g_recording.load(std::memory_order_acquire)) return;
  write_part(WriteKind::QuickExit);
}

// exec*() through the preloaded hook: the part, before the program is replaced (no exit handler
// runs at exec). The same conditions as on_quick_exit; the process may go on if the exec fails.
void on_exec() noexcept {
  if (!g_enabled || g_core == nullptr) return;
  if (static_cast<std::uint32_t>(::getpid()) != core().pid) return;
  if (!g_recording.load(std::memory_order_acquire)) return;
  write_part(WriteKind::Exec);
}

__attribute__((destructor)) void collector_unload() noexcept {
  if (g_enabled) write_part(WriteKind::Exit);
}

}  // namespace

// --- shared with the part writer and the NVTX layer -----------------------------------------

std::atomic<std::int64_t>& buffer_bytes_in_use() noexcept { return g_bytes_in_use; }
std::int64_t buffer_bytes_budget() noexcept { return g_bytes_budget; }

ProcessInfo process_info() noexcept {
  ProcessInfo p;
  Core& c = core();
  p.pid = c.pid;
  p.ppid = c.ppid;
  p.start_ns = c.start_ns;
  p.cpus_online = c.cpu.online;
  p.cpus_allowed = c.cpu.allowed;
  p.omp_threads = c.cpu.omp_threads;
  try {
    p.part_path = c.part_path;
  } catch (...) {
  }
  return p;
}

std::vector<format::CategoryRec> categories_snapshot() {
  std::lock_guard<std::mutex> lock(core().misc_mu);
  return core().categories;
}

std::unordered_map<std::uint64_t, format::StrId> thread_name_overrides_snapshot() {
  std::lock_guard<std::mutex> lock(core().misc_mu);
  return core().thread_names;
}

std::vector<std::pair<std::string, std::uint64_t>> diagnostics_snapshot() {
  std::vector<std::pair<std::string, std::uint64_t>> out;
  {
    std::lock_guard<std::mutex> lock(core().diag_mu);
    out.assign(core().diags.begin(), core().diags.end());
  }
  const RecordCounters counters = record_counters();
  if (auto n = counters.dropped_ranges) {
    out.emplace_back("collector.dropped_ranges", n);
  }
  if (auto n = counters.dropped_marks) {
    out.emplace_back("collector.dropped_marks", n);
  }
  if (g_clock_forced_monotonic) out.emplace_back("collector.clock_monotonic", 1);
  // Records kept on disk past the memory budget (all of them are in the part).
  std::uint64_t spilled_ranges = 0;
  std::uint64_t spilled_marks = 0;
  const std::uint32_t n = thread_count();
  for (std::uint32_t i = 0; i < n; ++i) {
    if (const ThreadState* ts = thread_at(i)) {
      spilled_ranges += ts->ranges.spilled_records(ts->ranges.published());
      spilled_marks += ts->marks.spilled_records(ts->marks.published());
    }
  }
  if (spilled_ranges != 0) out.emplace_back("collector.spilled_ranges", spilled_ranges);
  if (spilled_marks != 0) out.emplace_back("collector.spilled_marks", spilled_marks);
  return out;
}

std::vector<PartHook> hooks_snapshot() noexcept {
  try {
    std::lock_guard<std::mutex> lock(core().hooks_mu);
    return core().hooks;
  } catch (...) {
    return {};
  }
}

std::mutex& write_mutex() noexcept { return core().write_mu; }

std::mutex* core_lock(int i) noexcept {
  Core& c = core();
  std::mutex* locks[kCoreLocks] = {&c.write_mu, &c.registry_mu, &c.strings_mu,
                                   &c.diag_mu,  &c.misc_mu,     &c.hooks_mu};
  return i >= 0 && i < kCoreLocks ? locks[i] : nullptr;
}

bool process_recorded() noexcept { return g_recording.load(std::memory_order_acquire); }

void mark_process_recording() noexcept {
  if (!g_enabled || g_recording.exchange(true, std::memory_order_acq_rel)) return;
  // The start marker (empty file) beside the part-to-be: see collector_state.hpp.
  // part_path changes only in the fork child handler, while no other thread exists.
  std::string path;
  try {
    path = core().part_path + ".started";
  } catch (...) {
    return;
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd >= 0) ::close(fd);
}

void register_exit_hook() noexcept {
  using Register = void (*)(void (*)(int));
  if (auto reg = reinterpret_cast<Register>(::dlsym(RTLD_DEFAULT, "amdahl_exit_hook_register"))) reg(&on_quick_exit);
  using RegisterExec = void (*)(void (*)());
  if (auto reg = reinterpret_cast<RegisterExec>(::dlsym(RTLD_DEFAULT, "amdahl_exec_hook_register"))) reg(&on_exec);
}

std::uint64_t activity_count() noexcept {
  const RecordCounters counters = record_counters();
  std::uint64_t sum = counters.range_ends + g_diag_changes.load(std::memory_order_relaxed) +
                      counters.dropped_ranges + counters.dropped_marks;
  const std::uint32_t n = thread_count();
  sum += n;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (const ThreadState* ts = thread_at(i)) {
      sum += ts->ranges.published() + ts->marks.published() +
             ts->pops.load(std::memory_order_relaxed);
    }
  }
  return sum;
}

void evict_spilled_records() noexcept {
  const std::uint32_t n = thread_count();
  for (std::uint32_t i = 0; i < n; ++i) {
    if (const ThreadState* ts = thread_at(i)) {
      ts->ranges.evict_spilled();
      ts->marks.evict_spilled();
      ts->cpu.evict_spilled();
    }
  }
}

bool have_part_hooks() noexcept {
  try {
    std::lock_guard<std::mutex> lock(core().hooks_mu);
    return !core().hooks.empty() && !core().hooks_inherited;
  } catch (...) {
    return false;
  }
}

}  // namespace detail

// --- the exported interface (collector_core.hpp) --------------------------------------------

std::int64_t now_ns() noexcept { return detail::clock_now_ns(); }

void count_diagnostic(std::string_view key, std::uint64_t n) noexcept {
  if (!detail::g_enabled) return;
  auto& c = detail::core();
  try {
    std::lock_guard<std::mutex> lock(c.diag_mu);
    detail::g_diag_changes.fetch_add(1, std::memory_order_relaxed);
    auto it = c.diags.find(key);
    if (it == c.diags.end()) {
      c.diags.emplace(std::string(key), n);
    } else {
      it->second += n;
    }
  } catch (...) {
  }
}

bool collector_enabled() noexcept { return detail::g_enabled; }
bool collector_refused_static_host() noexcept { return detail::g_static_host; }

void register_part_hook(PartHook hook) noexcept {
  if (hook == nullptr || detail::g_core == nullptr) return;
  auto& c = detail::core();
  try {
    std::lock_guard<std::mutex> lock(c.hooks_mu);
    if (c.hooks.size() >= 8) return;
    for (PartHook h : c.hooks) {
      if (h == hook) return;
    }
    c.hooks.push_back(hook);
  } catch (...) {
  }
}

}  // namespace amdahl::profiler
