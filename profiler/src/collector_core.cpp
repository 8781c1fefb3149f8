// The collector core: process-wide state (enabled flag, pid, part path), the clock, string
// interning, diagnostics, part hooks, the per-thread registry with its lock-free record
// buffers, the recording entry points used by the NVTX layer, and fork handling.
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

#include "collector_config.hpp"
#include "collector_state.hpp"
#include "elf_probe.hpp"
#include "log.hpp"
#include "proc_info.hpp"
#include "gpu_schedule.hpp"
#include "spill_file.hpp"
#include "step_window.hpp"
#include "tsc_clock.hpp"

namespace amdahl::profiler {
namespace detail {
namespace {

struct Core {
  std::uint32_t pid = 0;
  std::uint32_t ppid = 0;
  std::int64_t start_ns = 0;
  CpuInfo cpu;
  std::string part_dir;
  std::string part_path;

  std::mutex write_mu;  // lock order: write_mu, registry_mu, strings_mu, diag_mu, misc_mu, hooks_mu
  std::mutex registry_mu;
  std::mutex strings_mu;
  std::deque<std::string> strings;
  std::unordered_map<std::string_view, format::StrId> string_ids;
  std::mutex diag_mu;
  std::map<std::string, std::uint64_t, std::less<>> diags;
  std::mutex misc_mu;
  std::vector<format::CategoryRec> categories;
  std::unordered_map<std::uint64_t, format::StrId> thread_names;
  std::mutex hooks_mu;
  std::vector<PartHook> hooks;
  // A forked child keeps its parent's hooks (CUPTI's), but no CUDA work of its own can run in
  // it: a quick exit there loses nothing of theirs (no "quick_exit_without_hooks").
  bool hooks_inherited = false;
};

// Never destroyed: callbacks may still arrive from other threads while the process exits.
Core* g_core = nullptr;
bool g_enabled = false;
bool g_static_host = false;  // loaded into a statically linked program: off, said once
std::atomic<std::uint32_t> g_epoch{0};
std::atomic<bool> g_recording{false};  // a thread registered since load (or fork)
std::atomic<std::uint32_t> g_thread_count{0};
std::atomic<ThreadState*> g_threads[kMaxThreads];
std::atomic<std::uint64_t> g_dropped_ranges{0};
std::atomic<std::uint64_t> g_dropped_marks{0};
std::atomic<std::int64_t> g_bytes_in_use{0};
std::atomic<std::uint64_t> g_range_ends{0};    // successful nvtxRangeEnd calls
std::atomic<std::uint64_t> g_diag_changes{0};  // count_diagnostic calls
std::int64_t g_bytes_budget = std::int64_t{1024} << 20;
bool g_clock_forced_monotonic = false;  // AMDAHL_CLOCK=monotonic: said in the part's diagnostics

// The GPU trace window (AMDAHL_GPU_STEPS). g_step_watch is the id of "step" while steps are
// counted, kNoWatch otherwise: the push/start hot path pays one relaxed load and compare.
constexpr format::StrId kNoWatch = 0xFFFFFFFFu;
std::atomic<format::StrId> g_step_watch{kNoWatch};
bool g_window_set = false;
GpuSchedule g_window;   // issue 20: FROM:TO or sampled windows (gpu_schedule.hpp)
bool g_marks_always = false;  // AMDAHL_GPU_MARKS=always: sampled windows are marked without CUDA (tests)
std::atomic<std::uint64_t> g_steps_seen{0};
std::atomic<GpuWindowHook> g_window_hook{nullptr};

// Per-range CPU times (AMDAHL_RANGE_CPU, default on): the id of the domain `amdahl` whose push/pop
// ranges read the thread and process CPU clocks at push and pop; kNoWatch when off. Set once at
// load, before NVTX can call in: every other range pays one compare with it at push and at pop.
format::StrId g_cpu_domain = kNoWatch;

thread_local ThreadState* t_state = nullptr;
thread_local std::uint64_t t_tid = 0;
// The forking thread's open push ranges, kept by fork_child for the child's first
// registration of that thread (registering from the atfork handler would start the flusher
// there).
thread_local std::vector<StackEntry>* t_inherited = nullptr;

Core& core() noexcept { return *g_core; }

std::string make_part_path(const std::string& dir, std::uint32_t pid, std::int64_t ns) {
  return dir + "/part-" + std::to_string(pid) + "-" + std::to_string(ns) + ".amdpart";
}

bool usable_dir(const char* dir) noexcept {
  struct stat st {};
  return ::stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && ::access(dir, W_OK | X_OK) == 0;
}

ThreadState* register_thread() noexcept {
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

// --- fork ---------------------------------------------------------------------------------

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
    t_tid = 0;
    return;
  }
  Core& c = core();
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
  g_epoch.fetch_add(1, std::memory_order_relaxed);
  g_dropped_ranges.store(0, std::memory_order_relaxed);
  g_dropped_marks.store(0, std::memory_order_relaxed);
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
  g_recording.store(false, std::memory_order_relaxed);
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
  g_core = new (std::nothrow) Core();
  if (g_core == nullptr) return;
  Core& c = core();
  c.strings.emplace_back();  // id 0 is ""
  c.string_ids.emplace(std::string_view(c.strings.front()), format::kNoString);
  c.pid = static_cast<std::uint32_t>(::getpid());
  c.ppid = static_cast<std::uint32_t>(::getppid());
  c.start_ns = now_ns();
  c.cpu = read_cpu_info();
  g_bytes_budget = cfg.memory_budget_bytes;
  if (cfg.gpu_steps) {
    if (cfg.gpu_schedule) {
      g_window = *cfg.gpu_schedule;
      g_window_set = cfg.gpu_schedule->kind != ScheduleKind::All;
    } else {
      detail::log_message(detail::LogLevel::Warn,
                          "AMDAHL_GPU_STEPS=%s is not all, FROM:TO (FROM < TO) or K/M[@SKIP] (0 < K < M): "
                          "GPU activity collected throughout", cfg.gpu_steps->c_str());
    }
    g_marks_always = cfg.gpu_marks_always;
  }
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
  ::pthread_atfork(fork_prepare, fork_parent, fork_child);
  if (g_enabled && g_window_set) g_step_watch.store(intern("step"), std::memory_order_relaxed);
  if (g_enabled && cfg.range_cpu) g_cpu_domain = intern("amdahl");
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

PackedPayload pack(const format::Payload& p) noexcept {
  PackedPayload out;
  out.kind = p.kind;
  if (p.kind == format::PayloadKind::Double) {
    std::memcpy(&out.bits, &p.d, sizeof out.bits);
  } else {
    out.bits = p.i;
  }
  return out;
}

format::Payload unpack(const PackedPayload& p) noexcept {
  format::Payload out;
  out.kind = p.kind;
  if (p.kind == format::PayloadKind::Double) {
    std::memcpy(&out.d, &p.bits, sizeof out.d);
  } else if (p.kind != format::PayloadKind::None) {
    out.i = p.bits;
  }
  return out;
}

std::atomic<std::int64_t>& buffer_bytes_in_use() noexcept { return g_bytes_in_use; }
std::int64_t buffer_bytes_budget() noexcept { return g_bytes_budget; }

ThreadState* thread_state() noexcept {
  ThreadState* ts = t_state;
  if (ts != nullptr) [[likely]] return ts;
  if (!g_enabled) return nullptr;
  return register_thread();
}

std::uint32_t thread_count() noexcept { return g_thread_count.load(std::memory_order_acquire); }

ThreadState* thread_at(std::uint32_t index) noexcept {
  if (index >= thread_count()) return nullptr;
  return g_threads[index].load(std::memory_order_acquire);
}

format::StrId intern_with_text(std::string_view s, const std::string** text) noexcept {
  Core& c = core();
  try {
    std::lock_guard<std::mutex> lock(c.strings_mu);
    auto it = c.string_ids.find(s);
    if (it != c.string_ids.end()) {
      if (text != nullptr) *text = &c.strings[it->second];
      return it->second;
    }
    const auto id = static_cast<format::StrId>(c.strings.size());
    c.strings.emplace_back(s);
    c.string_ids.emplace(std::string_view(c.strings.back()), id);
    if (text != nullptr) *text = &c.strings.back();
    return id;
  } catch (...) {
    if (text != nullptr) *text = &c.strings.front();
    return format::kNoString;
  }
}

format::StrId intern_cached(ThreadState* ts, const char* s) noexcept {
  if (s == nullptr || *s == '\0') return format::kNoString;
  const auto key = reinterpret_cast<std::uintptr_t>(s);
  InternCacheEntry& e = ts->cache[((key >> 3) ^ (key >> 11)) & (ThreadState::kCacheSize - 1)];
  if (e.ptr == s && std::strcmp(s, e.text->c_str()) == 0) return e.id;
  const std::string* text = nullptr;
  const format::StrId id = intern_with_text(std::string_view(s), &text);
  e.ptr = s;
  e.text = text;
  e.id = id;
  return id;
}

// Whether a `step` range is already open on this thread: the program's own `step` and the one
// --torch opens make two per iteration, which count as one for the schedule.
bool step_open_on(const ThreadState* ts, format::StrId step) noexcept {
  for (const StackEntry& e : ts->stack)
    if (e.rec != nullptr && e.rec->name == step && e.rec->end_ns.load(std::memory_order_relaxed) == 0) return true;
  return ts->counted_step != nullptr && ts->counted_step->end_ns.load(std::memory_order_relaxed) == 0;
}

// Slow path of the GPU trace window: a range named `step` started on some thread. Returns
// whether it was counted (false for a step nested in an open one).
bool note_step_start(ThreadState* ts) noexcept {
  if (step_open_on(ts, g_step_watch.load(std::memory_order_relaxed))) return false;
  const std::uint64_t n = g_steps_seen.fetch_add(1, std::memory_order_relaxed);
  const TraceAction a = step_action(g_window, n);
  if (a == TraceAction::None) return true;
  if (a == TraceAction::Close && schedule_done_after(g_window, n)) g_step_watch.store(kNoWatch, std::memory_order_relaxed);
  const GpuWindowHook h = g_window_hook.load(std::memory_order_acquire);
  // A sampled window is marked only where CUDA started (the CUPTI side registered its hook):
  // a CPU-only process has no GPU records to keep to.
  if (h == nullptr && g_window.kind == ScheduleKind::Sample && !g_marks_always) return true;
  format::Payload p;
  p.kind = format::PayloadKind::Int64;
  p.i = static_cast<std::int64_t>(n);
  add_mark(ts, intern("amdahl"), intern(a == TraceAction::Open ? "gpu_trace_on" : "gpu_trace_off"), 0, p);
  if (h != nullptr) h(a == TraceAction::Open);
  return true;
}

namespace {

struct CpuClocks {
  std::int64_t thread_ns = -1;
  std::int64_t process_ns = -1;
};

std::int64_t clock_ns(clockid_t clock) noexcept {
  timespec ts{};
  if (::clock_gettime(clock, &ts) != 0) return -1;
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// Two system calls (CPU-time clocks have no vDSO path); the process clock sums over the
// process's threads.
__attribute__((noinline)) CpuClocks read_cpu_clocks() noexcept {
  return CpuClocks{clock_ns(CLOCK_THREAD_CPUTIME_ID), clock_ns(CLOCK_PROCESS_CPUTIME_ID)};
}

// Push of an `amdahl` range `e` (recorded: e.rec set): remembers the CPU clocks. Read after the
// wall-clock start, as the pop reads them before the wall-clock end, so the CPU interval lies
// inside the range.
__attribute__((noinline)) void open_cpu(ThreadState* ts, const StackEntry& e) noexcept {
  if (e.rec == nullptr) return;
  try {
    ts->cpu_open.push_back(CpuOpen{e.rec, static_cast<std::uint64_t>(e.local), -1, -1});
  } catch (...) {
    return;  // this range gets no CPU times
  }
  const CpuClocks c = read_cpu_clocks();
  ts->cpu_open.back().thread_ns = c.thread_ns;
  ts->cpu_open.back().process_ns = c.process_ns;
}

// Pop of the `amdahl` range `rec`: publishes its CPU times (before the range's end is
// published, so a part writer that sees the range closed sees them too).
__attribute__((noinline)) void close_cpu(ThreadState* ts, const LocalRange* rec, const CpuClocks& now) noexcept {
  auto& open = ts->cpu_open;
  std::size_t i = open.size();
  while (i > 0 && open[i - 1].rec != rec) --i;
  if (i == 0) return;  // opened without CPU clocks
  const CpuOpen o = open[i - 1];
  open.resize(i - 1);  // anything above it belongs to ranges no longer open
  if (o.thread_ns < 0 || o.process_ns < 0 || now.thread_ns < 0 || now.process_ns < 0) return;
  LocalCpu* c = ts->cpu.reserve();
  if (c == nullptr) return;  // memory budget spent: the range keeps -1
  c->local = o.local;
  c->thread_cpu_ns = now.thread_ns > o.thread_ns ? now.thread_ns - o.thread_ns : 0;
  c->process_cpu_ns = now.process_ns > o.process_ns ? now.process_ns - o.process_ns : 0;
  ts->cpu.publish();
}

}  // namespace

int push_range(ThreadState* ts, format::StrId domain, format::StrId name, std::uint32_t category,
               const format::Payload& payload) noexcept {
  if (name == g_step_watch.load(std::memory_order_relaxed)) [[unlikely]] note_step_start(ts);
  const std::int64_t t = clock_now_ns();
  auto& st = ts->stack;
  const StackEntry* top = st.empty() ? nullptr : &st.back();
  const std::int32_t depth = top == nullptr ? 0 : top->depth + 1;
  StackEntry entry{-1, nullptr, domain, depth};
  if (LocalRange* r = ts->ranges.reserve()) {
    r->start_ns = t;
    r->domain = domain;
    r->name = name;
    r->category = category;
    r->depth = depth;
    r->parent_local = top == nullptr ? -1 : top->local;
    const PackedPayload pp = pack(payload);
    r->payload_bits = pp.bits;
    r->payload_kind = pp.kind;
    r->kind = format::RangeKind::PushPop;
    entry.local = static_cast<std::int64_t>(ts->ranges.publish());
    entry.rec = r;
  } else {
    g_dropped_ranges.fetch_add(1, std::memory_order_relaxed);
  }
  try {
    st.push_back(entry);
    if (domain == g_cpu_domain) [[unlikely]] open_cpu(ts, entry);
  } catch (...) {
    g_dropped_ranges.fetch_add(1, std::memory_order_relaxed);
  }
  return depth;
}

namespace {

// The pop itself. `cpu`: the CPU clocks read at this pop of an `amdahl` range, or nullptr for
// every other pop (inlined into both callers, so the common one carries no CPU code at all).
__attribute__((always_inline)) inline int pop_range_impl(ThreadState* ts, format::StrId domain,
                                                         const CpuClocks* cpu) noexcept {
  const std::int64_t t = clock_now_ns();
  auto& st = ts->stack;
  std::size_t i = st.size();
  while (i > 0 && st[i - 1].domain != domain) --i;
  if (i == 0) {
    count_diagnostic("nvtx.unbalanced_pop");
    return -1;
  }
  const StackEntry e = st[i - 1];
  ts->pops.store(ts->pops.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  if (e.rec != nullptr) {
    if (cpu != nullptr) close_cpu(ts, e.rec, *cpu);
    e.rec->end_tid.store(static_cast<std::uint32_t>(ts->tid), std::memory_order_relaxed);
    e.rec->end_ns.store(t, std::memory_order_release);
  }
  if (i == st.size()) {
    st.pop_back();
  } else {
    st.erase(st.begin() + static_cast<std::ptrdiff_t>(i - 1));
  }
  return e.depth < 0 ? 0 : e.depth;
}

// Pop of a range of domain `amdahl`: the CPU clocks first (before the end time).
__attribute__((noinline)) int pop_range_cpu(ThreadState* ts, format::StrId domain) noexcept {
  const CpuClocks now = read_cpu_clocks();
  return pop_range_impl(ts, domain, &now);
}

}  // namespace

int pop_range(ThreadState* ts, format::StrId domain) noexcept {
  if (domain == g_cpu_domain) [[unlikely]] return pop_range_cpu(ts, domain);
  return pop_range_impl(ts, domain, nullptr);
}

namespace {
constexpr unsigned kIdLocalBits = 36;
constexpr unsigned kIdThreadShift = 36;
constexpr unsigned kIdEpochShift = 56;
constexpr std::uint64_t kIdLocalMask = (std::uint64_t{1} << kIdLocalBits) - 1;
}  // namespace

std::uint64_t start_range(ThreadState* ts, format::StrId domain, format::StrId name, std::uint32_t category,
                          const format::Payload& payload) noexcept {
  bool counted_step = false;
  if (name == g_step_watch.load(std::memory_order_relaxed)) [[unlikely]] counted_step = note_step_start(ts);
  const std::int64_t t = clock_now_ns();
  LocalRange* r = ts->ranges.reserve();
  if (r == nullptr) {
    g_dropped_ranges.fetch_add(1, std::memory_order_relaxed);
    return 0;
  }
  if (counted_step) [[unlikely]] ts->counted_step = r;
  r->start_ns = t;
  r->domain = domain;
  r->name = name;
  r->category = category;
  r->depth = -1;
  r->parent_local = -1;
  const PackedPayload pp = pack(payload);
  r->payload_bits = pp.bits;
  r->payload_kind = pp.kind;
  r->kind = format::RangeKind::StartEnd;
  const std::uint64_t local = ts->ranges.publish();
  return (std::uint64_t{g_epoch.load(std::memory_order_relaxed) & 0xFFu} << kIdEpochShift) |
         (std::uint64_t{ts->index} << kIdThreadShift) | (local + 1);
}

void end_range(std::uint64_t id) noexcept {
  if (!g_enabled || id == 0) return;  // id 0: the start was dropped (already counted)
  const std::int64_t t = clock_now_ns();
  const auto epoch = static_cast<std::uint32_t>(id >> kIdEpochShift);
  const auto index = static_cast<std::uint32_t>((id >> kIdThreadShift) & 0xFFFFFu);
  const std::uint64_t local_plus_one = id & kIdLocalMask;
  LocalRange* r = nullptr;
  if (epoch == (g_epoch.load(std::memory_order_relaxed) & 0xFFu) && local_plus_one != 0) {
    if (ThreadState* owner = thread_at(index)) r = owner->ranges.at(local_plus_one - 1);
  }
  std::int64_t open = 0;
  if (r == nullptr || r->kind != format::RangeKind::StartEnd ||
      !r->end_ns.compare_exchange_strong(open, t, std::memory_order_acq_rel)) {
    count_diagnostic("nvtx.unknown_range_end");
    return;
  }
  r->end_tid.store(static_cast<std::uint32_t>(current_tid()), std::memory_order_release);
  g_range_ends.fetch_add(1, std::memory_order_relaxed);
}

void add_mark(ThreadState* ts, format::StrId domain, format::StrId name, std::uint32_t category,
              const format::Payload& payload) noexcept {
  const std::int64_t t = clock_now_ns();
  LocalMark* m = ts->marks.reserve();
  if (m == nullptr) {
    g_dropped_marks.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  m->ts_ns = t;
  m->domain = domain;
  m->name = name;
  m->category = category;
  m->payload = pack(payload);
  ts->marks.publish();
}

void name_category(format::StrId domain, std::uint32_t category, format::StrId name) noexcept {
  if (!g_enabled) return;
  Core& c = core();
  try {
    std::lock_guard<std::mutex> lock(c.misc_mu);
    for (auto& rec : c.categories) {
      if (rec.domain == domain && rec.category == category) {
        rec.name = name;
        return;
      }
    }
    c.categories.push_back(format::CategoryRec{0, domain, category, name});
  } catch (...) {
  }
}

void name_os_thread(std::uint64_t tid, format::StrId name) noexcept {
  if (!g_enabled) return;
  Core& c = core();
  try {
    std::lock_guard<std::mutex> lock(c.misc_mu);
    c.thread_names[tid] = name;
  } catch (...) {
  }
}

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

std::string thread_comm(const ThreadState* ts) {
  std::lock_guard<std::mutex> lock(core().misc_mu);
  return ts->comm;
}

void set_thread_comm(ThreadState* ts, std::string comm) {
  std::lock_guard<std::mutex> lock(core().misc_mu);
  ts->comm = std::move(comm);
}

std::vector<std::pair<std::string, std::uint64_t>> diagnostics_snapshot() {
  std::vector<std::pair<std::string, std::uint64_t>> out;
  {
    std::lock_guard<std::mutex> lock(core().diag_mu);
    out.assign(core().diags.begin(), core().diags.end());
  }
  if (auto n = g_dropped_ranges.load(std::memory_order_relaxed)) {
    out.emplace_back("collector.dropped_ranges", n);
  }
  if (auto n = g_dropped_marks.load(std::memory_order_relaxed)) {
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

std::vector<std::string> strings_snapshot() {
  std::lock_guard<std::mutex> lock(core().strings_mu);
  return {core().strings.begin(), core().strings.end()};
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
  std::uint64_t sum = g_range_ends.load(std::memory_order_relaxed) +
                      g_diag_changes.load(std::memory_order_relaxed) +
                      g_dropped_ranges.load(std::memory_order_relaxed) +
                      g_dropped_marks.load(std::memory_order_relaxed);
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

std::uint64_t current_tid() noexcept {
  if (detail::t_state != nullptr) return detail::t_state->tid;
  if (detail::t_tid == 0) detail::t_tid = detail::os_tid();
  return detail::t_tid;
}

format::StrId intern(std::string_view s) noexcept {
  if (s.empty() || detail::g_core == nullptr) return format::kNoString;
  return detail::intern_with_text(s, nullptr);
}

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

void register_gpu_window_hook(GpuWindowHook hook) noexcept {
  detail::g_window_hook.store(hook, std::memory_order_release);
}
bool gpu_window_deferred() noexcept { return detail::g_window_set && detail::g_enabled; }
std::uint64_t gpu_steps_seen() noexcept { return detail::g_steps_seen.load(std::memory_order_relaxed); }
void mark_gpu_trace(bool on, std::int64_t payload) noexcept {
  if (!detail::g_enabled) return;
  detail::ThreadState* ts = detail::thread_state();
  if (ts == nullptr) return;
  format::Payload p;
  p.kind = format::PayloadKind::Int64;
  p.i = payload;
  detail::add_mark(ts, intern("amdahl"), intern(on ? "gpu_trace_on" : "gpu_trace_off"), 0, p);
}

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
