// The recording entry points of the NVTX layer (collector_state.hpp): push/pop ranges (the hot
// path: one TU, with the CPU-time code kept out of line), start/end ranges, marks, category and
// thread names; the payload packing; the GPU trace window's step counting and marks
// (AMDAHL_GPU_STEPS, gpu_schedule.hpp); the per-range CPU times of domain `amdahl`.
#include <time.h>

#include <cstring>
#include <mutex>
#include <new>

#include "collector_core_internal.hpp"
#include "gpu_schedule.hpp"
#include "log.hpp"
#include "tsc_clock.hpp"

namespace amdahl::profiler {
namespace detail {
namespace {

std::atomic<std::uint32_t> g_epoch{0};
std::atomic<std::uint64_t> g_dropped_ranges{0};
std::atomic<std::uint64_t> g_dropped_marks{0};
std::atomic<std::uint64_t> g_range_ends{0};    // successful nvtxRangeEnd calls

// The GPU trace window (AMDAHL_GPU_STEPS). g_step_watch is the id of "step" while steps are
// counted, kNoWatch otherwise: the push/start hot path pays one relaxed load and compare.
constexpr format::StrId kNoWatch = 0xFFFFFFFFu;
std::atomic<format::StrId> g_step_watch{kNoWatch};
bool g_window_set = false;
GpuSchedule g_window;   // issue 20: FROM:TO or sampled windows (gpu_schedule.hpp)
ShareGate g_gate;       // the share cap of a sampled schedule (guarded by g_gate_mu)
std::mutex g_gate_mu;
bool g_marks_always = false;  // AMDAHL_GPU_MARKS=always: sampled windows are marked without CUDA (tests)
std::atomic<std::uint64_t> g_steps_seen{0};
std::atomic<GpuWindowHook> g_window_hook{nullptr};

// Per-range CPU times (AMDAHL_RANGE_CPU, default on): the id of the domain `amdahl` whose push/pop
// ranges read the thread and process CPU clocks at push and pop; kNoWatch when off. Set once at
// load, before NVTX can call in: every other range pays one compare with it at push and at pop.
format::StrId g_cpu_domain = kNoWatch;

}  // namespace

void recording_configure(const CollectorConfig& cfg) noexcept {
  if (!cfg.gpu_steps) return;
  if (cfg.gpu_schedule) {
    g_window = *cfg.gpu_schedule;
    g_window_set = cfg.gpu_schedule->kind != ScheduleKind::All;
  } else {
    log_message(LogLevel::Warn,
                "AMDAHL_GPU_STEPS=%s is not all, FROM:TO (FROM < TO) or K/M[@SKIP] (0 < K < M): "
                "GPU activity collected throughout", cfg.gpu_steps->c_str());
  }
  g_marks_always = cfg.gpu_marks_always;
}

void recording_enable(const CollectorConfig& cfg) noexcept {
  if (g_window_set) g_step_watch.store(intern("step"), std::memory_order_relaxed);
  if (cfg.range_cpu) g_cpu_domain = intern("amdahl");
}

RecordCounters record_counters() noexcept {
  RecordCounters c;
  c.dropped_ranges = g_dropped_ranges.load(std::memory_order_relaxed);
  c.dropped_marks = g_dropped_marks.load(std::memory_order_relaxed);
  c.range_ends = g_range_ends.load(std::memory_order_relaxed);
  return c;
}

void recording_fork_child() noexcept {
  // A fork while another thread held the gate's lock: the child's copy would stay locked.
  new (&g_gate_mu) std::mutex;
  g_epoch.fetch_add(1, std::memory_order_relaxed);
  g_dropped_ranges.store(0, std::memory_order_relaxed);
  g_dropped_marks.store(0, std::memory_order_relaxed);
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

// Whether a `step` range is already open on this thread: the program's own `step` and the one
// --torch opens make two per iteration, which count as one for the schedule.
bool step_open_on(const ThreadState* ts, format::StrId step) noexcept {
  for (const StackEntry& e : ts->stack)
    if (e.rec != nullptr && e.rec->name == step && e.rec->end_tk.load(std::memory_order_relaxed) == 0) return true;
  return ts->counted_step != nullptr && ts->counted_step->end_tk.load(std::memory_order_relaxed) == 0;
}

// Slow path of the GPU trace window: a range named `step` started on some thread. Returns
// whether it was counted (false for a step nested in an open one).
bool note_step_start(ThreadState* ts) noexcept {
  if (step_open_on(ts, g_step_watch.load(std::memory_order_relaxed))) return false;
  TraceAction a;
  std::uint64_t n;
  {
    // One lock per counted step (the slow path): steps started on two threads at once see the
    // gate in their count's order.
    std::lock_guard<std::mutex> lock(g_gate_mu);
    n = g_steps_seen.fetch_add(1, std::memory_order_relaxed);
    a = capped_step_action(g_window, g_gate, n, clock_now_ns());
  }
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
               PackedPayload payload) noexcept {
  if (name == g_step_watch.load(std::memory_order_relaxed)) [[unlikely]] note_step_start(ts);
  const std::int64_t t = clock_ticks();
  auto& st = ts->stack;
  const StackEntry* top = st.empty() ? nullptr : &st.back();
  const std::int32_t depth = top == nullptr ? 0 : top->depth + 1;
  StackEntry entry{-1, nullptr, domain, depth};
  if (LocalRange* r = ts->ranges.reserve()) {
    r->start_tk = t;
    r->domain = domain;
    r->name = name;
    r->category = category;
    r->depth = depth;
    r->parent_local = top == nullptr ? -1 : top->local;
    r->payload_bits = payload.bits;
    r->payload_kind = payload.kind;
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
  const std::int64_t t = clock_ticks();
  auto& st = ts->stack;
  // The innermost open range of the domain (almost always the top): iterators, not indices,
  // so that no size is computed from the 24-byte entries.
  const auto end = st.end();
  auto it = end;
  while (it != st.begin() && (it - 1)->domain != domain) --it;
  if (it == st.begin()) {
    count_diagnostic("nvtx.unbalanced_pop");
    return -1;
  }
  --it;
  const StackEntry e = *it;
  ts->pops.store(ts->pops.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  if (e.rec != nullptr) {
    if (cpu != nullptr) close_cpu(ts, e.rec, *cpu);
    e.rec->end_tid.store(static_cast<std::uint32_t>(ts->tid), std::memory_order_relaxed);
    e.rec->end_tk.store(t, std::memory_order_release);
  }
  if (it + 1 == end) {
    st.pop_back();
  } else {
    st.erase(it);
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
  const std::int64_t t = clock_ticks();
  LocalRange* r = ts->ranges.reserve();
  if (r == nullptr) {
    g_dropped_ranges.fetch_add(1, std::memory_order_relaxed);
    return 0;
  }
  if (counted_step) [[unlikely]] ts->counted_step = r;
  r->start_tk = t;
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
  const std::int64_t t = clock_ticks();
  const auto epoch = static_cast<std::uint32_t>(id >> kIdEpochShift);
  const auto index = static_cast<std::uint32_t>((id >> kIdThreadShift) & 0xFFFFFu);
  const std::uint64_t local_plus_one = id & kIdLocalMask;
  LocalRange* r = nullptr;
  if (epoch == (g_epoch.load(std::memory_order_relaxed) & 0xFFu) && local_plus_one != 0) {
    if (ThreadState* owner = thread_at(index)) r = owner->ranges.at(local_plus_one - 1);
  }
  std::int64_t open = 0;
  if (r == nullptr || r->kind != format::RangeKind::StartEnd ||
      !r->end_tk.compare_exchange_strong(open, t, std::memory_order_acq_rel)) {
    count_diagnostic("nvtx.unknown_range_end");
    return;
  }
  r->end_tid.store(static_cast<std::uint32_t>(current_tid()), std::memory_order_release);
  g_range_ends.fetch_add(1, std::memory_order_relaxed);
}

void add_mark(ThreadState* ts, format::StrId domain, format::StrId name, std::uint32_t category,
              const format::Payload& payload) noexcept {
  const std::int64_t t = clock_ticks();
  LocalMark* m = ts->marks.reserve();
  if (m == nullptr) {
    g_dropped_marks.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  m->ts_tk = t;
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

}  // namespace detail

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

}  // namespace amdahl::profiler
