// Internal state of the collector core, shared by the recording entry points
// (recording.cpp, thread_registry.cpp, string_table.cpp, collector_core.cpp), the part writer (part_writer.cpp) and the NVTX layer
// (nvtx_injection.cpp): per-thread buffers and stacks, the thread registry and the
// process-wide tables. Not part of the exported interface.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "chunked_buffer.hpp"
#include "collector_core.hpp"
#include "name_prefix.hpp"

namespace amdahl::profiler::detail {

// A payload packed into 9 bytes (format::Payload is 24): the kind and the 64-bit pattern.
struct PackedPayload {
  std::int64_t bits = 0;
  format::PayloadKind kind = format::PayloadKind::None;
};
inline PackedPayload pack(const format::Payload& p) noexcept {
  PackedPayload out;
  out.kind = p.kind;
  if (p.kind == format::PayloadKind::Double) {
    std::memcpy(&out.bits, &p.d, sizeof out.bits);
  } else {
    out.bits = p.i;
  }
  return out;
}
format::Payload unpack(const PackedPayload& p) noexcept;

// A range as the collector holds it while the process runs. Times are clock ticks (tsc_clock.hpp:
// converted to nanoseconds when the part is written); end_tk == 0 means still open.
struct LocalRange {
  std::int64_t start_tk = 0;
  std::atomic<std::int64_t> end_tk{0};
  std::int64_t parent_local = -1;  // index of the parent in the same thread's buffer
  std::int64_t payload_bits = 0;
  std::atomic<std::uint32_t> end_tid{0};
  format::StrId domain = format::kNoString;
  format::StrId name = format::kNoString;
  std::uint32_t category = 0;
  std::int32_t depth = 0;  // -1 for start/end ranges
  format::PayloadKind payload_kind = format::PayloadKind::None;
  format::RangeKind kind = format::RangeKind::PushPop;
};

// CPU time of one closed push/pop range of domain `amdahl` (see push_range): kept in a buffer of
// its own beside the ranges, so that LocalRange stays 56 bytes for every other range.
struct LocalCpu {
  std::uint64_t local = 0;          // index of the range in the same thread's range buffer
  std::int64_t thread_cpu_ns = 0;   // CLOCK_THREAD_CPUTIME_ID, pop minus push
  std::int64_t process_cpu_ns = 0;  // CLOCK_PROCESS_CPUTIME_ID, pop minus push
};

// An open push/pop range of domain `amdahl`: its record and the CPU clocks read at push
// (-1: the read failed).
struct CpuOpen {
  const LocalRange* rec = nullptr;
  std::uint64_t local = 0;
  std::int64_t thread_ns = -1;
  std::int64_t process_ns = -1;
};

struct LocalMark {
  std::int64_t ts_tk = 0;  // clock ticks
  format::StrId domain = format::kNoString;
  format::StrId name = format::kNoString;
  std::uint32_t category = 0;
  PackedPayload payload;
};

// One open push/pop range on a thread's stack. local < 0: not recorded (dropped, or inherited
// from the parent process across fork) but still balances a pop.
struct StackEntry {
  std::int64_t local = -1;
  LocalRange* rec = nullptr;
  format::StrId domain = format::kNoString;
  std::int32_t depth = 0;  // -1 for entries inherited across fork
};

// Thread-local cache of name -> id, keyed by the caller's const char* and checked by content.
struct InternCacheEntry {
  const char* ptr = nullptr;
  const char* text = nullptr;  // the id's stable text (a string of the table, never changed)
  NamePrefix prefix;           // its first 16 bytes, for the hit test (name_prefix.hpp)
  format::StrId id = format::kNoString;
};

struct ThreadState {
  std::uint32_t index = 0;  // slot in the registry
  std::uint64_t tid = 0;
  std::string comm;         // OS thread name read at registration (guarded by misc mutex)
  ChunkedBuffer<LocalRange> ranges;
  ChunkedBuffer<LocalMark> marks;
  std::vector<StackEntry> stack;  // owner thread only
  // CPU times of closed `amdahl` push/pop ranges, and the CPU clocks of the open ones
  // (innermost last: ranges of one domain close innermost first). cpu_open: owner thread only.
  ChunkedBuffer<LocalCpu> cpu;
  std::vector<CpuOpen> cpu_open;
  // Pops seen (owner writes, the flusher reads): with the published counts of the buffers it
  // tells the flusher whether anything changed since its last look.
  std::atomic<std::uint64_t> pops{0};
  // The last start/end `step` range counted for the GPU trace schedule on this thread (owner
  // thread only): a step opened while it is still open is nested, not counted again.
  LocalRange* counted_step = nullptr;
  static constexpr std::size_t kCacheSize = 64;
  InternCacheEntry cache[kCacheSize];
};

inline constexpr std::uint32_t kMaxThreads = 1u << 16;

// The calling thread's state, created and registered on first use; nullptr if the collector
// is disabled or the registry is full. Inline: one thread-local load and a test (the library is
// built with TLS descriptors, collector.cmake); registration out of line.
// constinit: no TLS wrapper call is checked for at each use (the definition is constant-initialized).
extern constinit thread_local ThreadState* t_state;
ThreadState* thread_state_slow() noexcept;
inline ThreadState* thread_state() noexcept {
  ThreadState* ts = t_state;
  if (ts != nullptr) [[likely]] return ts;
  return thread_state_slow();
}

// The registry: number of slots handed out and the slot contents (lock-free reads).
std::uint32_t thread_count() noexcept;
ThreadState* thread_at(std::uint32_t index) noexcept;

// Interning with a pointer-keyed per-thread cache in front of intern(): a hit is the same
// pointer with the same text (a caller may reuse a buffer for another name). Inline hit, the
// rest out of line.
inline InternCacheEntry& intern_slot(ThreadState* ts, const char* s) noexcept {
  const auto key = reinterpret_cast<std::uintptr_t>(s);
  return ts->cache[((key >> 3) ^ (key >> 11)) & (ThreadState::kCacheSize - 1)];
}
format::StrId intern_cached_slow(ThreadState* ts, const char* s) noexcept;
inline format::StrId intern_cached(ThreadState* ts, const char* s) noexcept {
  const InternCacheEntry& e = intern_slot(ts, s);
  if (e.ptr == s && s != nullptr && name_matches(e.prefix, e.text, s)) [[likely]] return e.id;
  return intern_cached_slow(ts, s);
}
// intern() that also returns the stable text of the id.
format::StrId intern_with_text(std::string_view s, const std::string** text) noexcept;

// Recording entry points used by the NVTX layer. All are no-ops when disabled.
// `ts` is thread_state() of the caller (non-null).
int push_range(ThreadState* ts, format::StrId domain, format::StrId name, std::uint32_t category,
               PackedPayload payload) noexcept;
int pop_range(ThreadState* ts, format::StrId domain) noexcept;
std::uint64_t start_range(ThreadState* ts, format::StrId domain, format::StrId name, std::uint32_t category,
                          const format::Payload& payload) noexcept;
void end_range(std::uint64_t id) noexcept;
void add_mark(ThreadState* ts, format::StrId domain, format::StrId name, std::uint32_t category,
              const format::Payload& payload) noexcept;
void name_category(format::StrId domain, std::uint32_t category, format::StrId name) noexcept;
void name_os_thread(std::uint64_t tid, format::StrId name) noexcept;

// Process-wide data the part writer reads.
struct ProcessInfo {
  std::uint32_t pid = 0;
  std::uint32_t ppid = 0;
  std::int64_t start_ns = 0;
  std::uint32_t cpus_online = 0;   // read at collector load (and again in a fork child)
  std::uint32_t cpus_allowed = 0;
  std::uint32_t omp_threads = 0;
  std::string part_path;  // empty when disabled
};
ProcessInfo process_info() noexcept;

// Snapshots for the part writer (each takes its own lock briefly).
std::vector<format::CategoryRec> categories_snapshot();
std::unordered_map<std::uint64_t, format::StrId> thread_name_overrides_snapshot();
std::vector<std::pair<std::string, std::uint64_t>> diagnostics_snapshot();
std::vector<std::string> strings_snapshot();
std::vector<PartHook> hooks_snapshot() noexcept;
std::string thread_comm(const ThreadState* ts);
void set_thread_comm(ThreadState* ts, std::string comm);

// Forgets what was written (the child after fork starts its own part).
void reset_write_state() noexcept;

// Why a part is written. Flush: a periodic or explicit write while the process runs (the part
// carries "collector.flushed_before_exit" = 1: what comes after it is lost if the process ends
// without another write). Exit: the final write (atexit, library destructor). Crash: from a
// fatal-signal handler ("collector.crash_signal" = N; part hooks are not run, see part_writer).
// QuickExit: the final write from _exit()/_Exit() (the preloaded exit hook, exit_hook.c): no
// exit handler runs there and it may be called from a signal handler (PyTorch's workers leave
// through _exit in their SIGTERM handler), so it locks as Crash does and runs no part hooks;
// with part hooks registered it counts "collector.quick_exit_without_hooks" = 1 (their records
// since the last write are missing).
enum class WriteKind { Flush, Exit, Crash, QuickExit, Exec };  // Exec: just before an exec (exit_hook.c)
// Writes the part (write_part_now() is write_part(WriteKind::Flush)). Crash, QuickExit: only if
// every collector lock can be taken (try-lock), else the last written part stays.
void write_part(WriteKind kind, int signal = 0) noexcept;
// Whether the final (Exit) write happened: the flusher stops.
bool exit_written() noexcept;

// A number that changes whenever a record is added or closed, or a diagnostic counted (a sum
// of counters read without locks; for the flusher's "anything new?" check).
std::uint64_t activity_count() noexcept;
// Hands the pages of every spilled chunk back to the kernel (spill_file.hpp): the flusher, on
// each look, and the part writer after each write.
void evict_spilled_records() noexcept;
// Whether any part hook is registered.
bool have_part_hooks() noexcept;

// The background flusher (flusher.cpp): started lazily by the first thread that records in a
// process (again in a forked child, whose first recording thread starts its own). AMDAHL_FLUSH_MS
// (default 500; 0 disables) is the first interval; it doubles after each look, up to 10 s.
void ensure_flusher() noexcept;
// Whether this process (since its fork) has registered a recording thread: only such a process
// writes a part from _exit, and it leaves a start marker (`<part path>.started`, created at
// its first record) so that the launcher can tell a process that recorded and wrote no part
// (killed with SIGKILL before its first flush) from one that never recorded. The first part
// written removes the marker.
bool process_recorded() noexcept;
void mark_process_recording() noexcept;
// In the fork child: the parent's flusher thread does not exist here.
void flusher_after_fork_child() noexcept;

// Starts one of the collector's threads (background_thread.cpp): detached, `stack_bytes` of
// stack, every signal blocked. pthread_create's result.
int start_background_thread(void* (*main)(void*), void* arg, std::size_t stack_bytes) noexcept;

// The prefaulter (prefaulter.cpp; chunked_buffer.hpp's look-ahead): prefault_configure at load
// (AMDAHL_PREFAULT), ensure_prefaulter at the first kick of a process (a buffer nearing its
// first mapped chunk), prefaulter_after_fork_child in the child.
void prefault_configure(bool on) noexcept;
void ensure_prefaulter() noexcept;
void prefaulter_after_fork_child() noexcept;

// Fatal-signal handlers (crash_handler.cpp): installed at load for SIGSEGV, SIGBUS, SIGFPE,
// SIGILL, SIGABRT, SIGTERM, SIGINT and SIGHUP where the host has none; they write the part and
// re-raise.
void install_crash_handlers() noexcept;

// Registers on_quick_exit with the exit hook library when `amdahl profile` preloaded it
// (LD_PRELOAD=libamdahl_exit.so): its _exit()/_Exit() call the hook first.
void register_exit_hook() noexcept;

// The locks the crash path must be able to take (in lock order); see write_part(Crash).
std::mutex* core_lock(int i) noexcept;
inline constexpr int kCoreLocks = 6;

// Serialises part writes with fork (prepare handler takes it).
std::mutex& write_mutex() noexcept;

}  // namespace amdahl::profiler::detail
