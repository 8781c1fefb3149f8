// Builds this process's RecordSet from the per-thread buffers and process tables (all but the
// ranges, which are streamed from the buffers to the file: format::write_part_streamed), runs the
// registered part hooks, and writes the part file (tmp + rename).
// A later call rewrites the same file with everything recorded so far, and only when
// something new came. Also the crash-time write (from a fatal-signal handler: try-locks only,
// no hooks; the hooks' records of the last write are read back from the part on disk).
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <atomic>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "amdahl/format/part_file.hpp"
#include "collector_state.hpp"
#include "log.hpp"
#include "proc_info.hpp"
#include "tsc_clock.hpp"

namespace amdahl::profiler {
namespace detail {
namespace {

using Signature = std::array<std::uint64_t, 13>;

// Guarded by write_mutex().
bool g_written = false;
Signature g_last_signature{};
bool g_warned_write_failure = false;
// Read once per image (a forked child runs the same command line). A pointer, never destroyed:
// the part may be written after static destructors ran (library destructor, other threads).
std::string* g_command = nullptr;
std::atomic<bool> g_exit_written{false};  // read by the flusher without the lock
std::atomic<bool> g_crashing{false};      // a crash write started: no more flushes
// Whether the last written part holds records added by part hooks, and the keys of the
// diagnostics they added (the crash write takes both from the part on disk).
bool g_last_had_hook_records = false;
std::set<std::string>* g_hook_diag_keys = nullptr;

thread_local bool t_in_write = false;

// ranges: the number of ranges written (they are streamed, not in rs); activity: activity_count()
// when the write began (it moves when a range closes).
Signature signature_of(const format::RecordSet& rs, std::uint64_t ranges, std::uint64_t activity) {
  std::uint64_t diag_total = 0;
  for (const auto& d : rs.diagnostics) diag_total += d.count;
  return Signature{ranges,            activity,           rs.marks.size(),
                   rs.threads.size(), rs.categories.size(), rs.api_calls.size(),
                   rs.gpu_ops.size(), rs.syncs.size(),    rs.devices.size(),
                   diag_total,        rs.strings.size(),  rs.processes.size(),
                   rs.event_records.size()};
}

// One thread's ranges as the write sees them: the first `count` published (those that start by
// the write's limit), their index base in the part, and the CPU times of its closed `amdahl` ranges.
struct ThreadRanges {
  const ThreadState* ts = nullptr;
  std::uint64_t count = 0;
  std::int64_t base = 0;
  std::unordered_map<std::uint64_t, const LocalCpu*> cpu;
};

// The number of records of `buf` that start by limit_ns (each thread's records are in start
// order: a binary search; start_of gives clock ticks).
template <class T, class StartOf>
std::uint64_t count_until(const ChunkedBuffer<T>& buf, std::int64_t limit_ns, StartOf start_of) {
  std::uint64_t lo = 0;
  std::uint64_t hi = buf.published();
  if (limit_ns == INT64_MAX) return hi;
  TickConverter to_ns;
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    const T* r = buf.at(mid);
    if (r != nullptr && to_ns(start_of(*r)) <= limit_ns) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// Threads, marks and the plan of the ranges (which of each thread's ranges, at which index
// base): the ranges themselves are not copied here but streamed to the file by emit_ranges.
// limit_ns: records that start later are left out (the crash write keeps what existed at the
// signal, so other threads that go on recording cannot make it endless). Runs before the string
// table is taken, so every string a planned range names is in it.
std::vector<ThreadRanges> collect_threads(format::RecordSet& out, std::uint32_t pid, std::int64_t limit_ns,
                                          std::uint64_t& range_total) {
  const auto overrides = thread_name_overrides_snapshot();
  std::unordered_map<std::uint64_t, bool> seen;
  std::vector<ThreadRanges> plan;
  range_total = 0;
  const std::uint32_t n = thread_count();
  for (std::uint32_t t = 0; t < n; ++t) {
    ThreadState* ts = thread_at(t);
    if (ts == nullptr) continue;
    seen[ts->tid] = true;

    // OS thread name: nvtxNameOsThread wins, else comm now, else comm read at registration.
    format::StrId name = format::kNoString;
    if (auto it = overrides.find(ts->tid); it != overrides.end()) {
      name = it->second;
    } else {
      std::string comm = read_thread_comm(ts->tid);
      if (comm.empty()) {
        comm = thread_comm(ts);
      } else {
        set_thread_comm(ts, comm);
      }
      name = intern(comm);
    }
    out.threads.push_back(format::ThreadRec{pid, ts->tid, name});

    ThreadRanges tr;
    tr.ts = ts;
    tr.base = static_cast<std::int64_t>(range_total);
    tr.count = count_until(ts->ranges, limit_ns, [](const LocalRange& r) { return r.start_tk; });
    range_total += tr.count;
    // CPU times of closed `amdahl` ranges (published before their end: every range seen closed
    // later has its entry here, if it got one). A range seen open keeps -1.
    const std::uint64_t nc = ts->cpu.published();
    for (std::uint64_t i = 0; i < nc; ++i) {
      const LocalCpu* c = ts->cpu.at(i);
      if (c == nullptr) break;
      if (c->local < tr.count) tr.cpu[c->local] = c;
    }
    plan.push_back(std::move(tr));

    const std::uint64_t nm = count_until(ts->marks, limit_ns, [](const LocalMark& m) { return m.ts_tk; });
    TickConverter to_ns;
    for (std::uint64_t i = 0; i < nm; ++i) {
      const LocalMark* m = ts->marks.at(i);
      if (m == nullptr) break;
      out.marks.push_back(format::MarkRec{pid, ts->tid, m->domain, m->name, m->category,
                                          to_ns(m->ts_tk), unpack(m->payload)});
    }
  }
  // Threads named through nvtxNameOsThread that never made an NVTX call themselves.
  for (const auto& [tid, name] : overrides) {
    if (!seen.count(tid)) out.threads.push_back(format::ThreadRec{pid, tid, name});
  }
  return plan;
}

// Set when the final write is asked for: a flush in progress gives up (its file is removed) so that
// the exit does not wait for it to finish first.
std::atomic<bool> g_final_write_waiting{false};

struct FlushAbandoned : std::runtime_error {
  FlushAbandoned() : std::runtime_error("flush abandoned for the final write") {}
};

// Streams the planned ranges to `sink`, counting the open ones (they end at write_ns). A flush
// looks every 64 Ki ranges whether the final write is waiting, and gives up if so.
void emit_ranges(const std::vector<ThreadRanges>& plan, std::uint32_t pid, std::int64_t write_ns,
                 const format::RangeSink& sink, std::uint64_t& unclosed, bool flush) {
  format::RangeRec rec;
  for (const ThreadRanges& tr : plan) {
    const ThreadState* ts = tr.ts;
    TickConverter start_ns, end_ns;  // ticks to ns, each in (nearly) rising order
    const LocalRange* r = nullptr;
    std::uint64_t left = 0;  // records from r to the end of its chunk (ChunkedBuffer::run_at)
    for (std::uint64_t i = 0; i < tr.count; ++i, ++r, --left) {
      if ((i & 0xFFFF) == 0 && i != 0) {
        if (flush && g_final_write_waiting.load(std::memory_order_relaxed)) throw FlushAbandoned();
        // Spilled pages read back for the stream go back to the kernel as it goes (every 1 Mi
        // ranges), so a write of many spilled ranges does not bring them all into memory.
        if ((i & 0xFFFFF) == 0) ts->ranges.evict_spilled();
      }
      if (left == 0) {
        r = ts->ranges.run_at(i, left);
        if (r == nullptr) throw std::runtime_error("a planned range is missing");  // cannot happen: published
      }
      rec.pid = pid;
      rec.tid = ts->tid;
      rec.domain = r->domain;
      rec.name = r->name;
      rec.category = r->category;
      rec.kind = r->kind;
      rec.depth = r->depth;
      rec.parent = r->parent_local < 0 ? -1 : tr.base + r->parent_local;
      rec.start_ns = start_ns(r->start_tk);
      rec.payload = unpack(PackedPayload{r->payload_bits, r->payload_kind});
      rec.thread_cpu_ns = -1;
      rec.process_cpu_ns = -1;
      const std::int64_t end = r->end_tk.load(std::memory_order_acquire);
      if (end == 0) {
        rec.end_ns = write_ns < rec.start_ns ? rec.start_ns : write_ns;
        rec.unclosed = true;
        rec.end_tid = 0;
        ++unclosed;
      } else {
        rec.end_ns = end_ns(end);
        rec.unclosed = false;
        const std::uint32_t et = r->end_tid.load(std::memory_order_acquire);
        rec.end_tid = et != 0 ? et : ts->tid;
        if (!tr.cpu.empty()) {
          if (auto it = tr.cpu.find(i); it != tr.cpu.end()) {
            rec.thread_cpu_ns = it->second->thread_cpu_ns;
            rec.process_cpu_ns = it->second->process_cpu_ns;
          }
        }
      }
      sink(rec);
    }
  }
}

// Crash write: the hooks are not run (the CUPTI hook takes its own lock and calls into CUPTI,
// which may be what crashed, or hold locks the crashed thread holds). Their records from the
// last written part are carried over from the file.
void carry_hook_records_from_disk(format::RecordSet& out, const std::string& path) {
  if (!g_last_had_hook_records) return;
  format::RecordSet old = format::read_part(path);
  out.gpu_ops = std::move(old.gpu_ops);
  out.api_calls = std::move(old.api_calls);
  out.syncs = std::move(old.syncs);
  out.event_records = std::move(old.event_records);
  out.devices = std::move(old.devices);
  if (g_hook_diag_keys == nullptr) return;
  for (const auto& d : old.diagnostics) {
    if (d.key < old.strings.size() && g_hook_diag_keys->count(old.strings[d.key])) {
      out.diagnostics.push_back(
          format::DiagRec{d.pid, intern(old.strings[d.key]), d.count, format::kNoString});
    }
  }
}

void write_locked(WriteKind kind, int signal, std::int64_t limit_ns) {
  const ProcessInfo info = process_info();
  if (info.part_path.empty()) return;
  const std::int64_t write_ns = std::min(now_ns(), limit_ns);
  format::RecordSet out;
  // Taken first: anything recorded from here on makes the next look write again.
  const std::uint64_t activity = activity_count();

  std::uint64_t range_total = 0;
  const std::vector<ThreadRanges> plan = collect_threads(out, info.pid, limit_ns, range_total);
  const format::StrId unclosed_key = intern("nvtx.unclosed_range");  // before the string table

  for (auto c : categories_snapshot()) {
    c.pid = info.pid;
    out.categories.push_back(c);
  }

  auto diags = diagnostics_snapshot();
  if (kind == WriteKind::Flush) diags.emplace_back("collector.flushed_before_exit", 1);
  // Read by the merge: the next part of this pid is this process after the exec, not a reused pid.
  if (kind == WriteKind::Exec) diags.emplace_back("collector.exec", 1);
  if (kind == WriteKind::Crash)
    diags.emplace_back(signal == SIGTERM || signal == SIGINT || signal == SIGHUP ? "collector.term_signal"
                                                                                : "collector.crash_signal",
                       signal);
  if (kind == WriteKind::QuickExit && have_part_hooks()) diags.emplace_back("collector.quick_exit_without_hooks", 1);
  for (const auto& [key, count] : diags) {
    out.diagnostics.push_back(format::DiagRec{info.pid, intern(key), count, format::kNoString});
  }

  if (g_command == nullptr) g_command = new std::string(read_command_line());
  format::ProcessRec proc;
  proc.pid = info.pid;
  proc.ppid = info.ppid;
  proc.command = intern(*g_command);
  proc.start_ns = info.start_ns;
  proc.end_ns = write_ns;
  proc.rank = read_rank();
  proc.cpus_online = info.cpus_online;
  proc.cpus_allowed = info.cpus_allowed;
  proc.omp_threads = info.omp_threads;
  out.processes.push_back(proc);

  const std::size_t core_diags = out.diagnostics.size();
  bool hook_records = false;
  if (kind == WriteKind::Crash || kind == WriteKind::QuickExit) {
    carry_hook_records_from_disk(out, info.part_path);
    hook_records = g_last_had_hook_records;
  } else {
    for (PartHook hook : hooks_snapshot()) hook(out);
    hook_records = !out.gpu_ops.empty() || !out.api_calls.empty() || !out.syncs.empty() ||
                   !out.event_records.empty() || !out.devices.empty() ||
                   out.diagnostics.size() > core_diags;
  }

  out.strings = strings_snapshot();

  const Signature sig = signature_of(out, range_total, activity);
  if (g_written && sig == g_last_signature) return;
  // The ranges go from the thread buffers straight to the file (no copy of them all in memory);
  // the count of open ones joins the diagnostics, which follow the ranges in the file.
  std::uint64_t unclosed = 0;
  format::RangeStream stream;
  stream.count = range_total;
  stream.emit = [&](const format::RangeSink& sink) {
    emit_ranges(plan, info.pid, write_ns, sink, unclosed, kind == WriteKind::Flush);
  };
  stream.finish = [&](format::RecordSet& rs) {
    if (unclosed > 0) rs.diagnostics.push_back(format::DiagRec{info.pid, unclosed_key, unclosed, format::kNoString});
  };
  std::string error;
  const bool wrote = format::write_part_streamed(out, stream, info.part_path, &error);
  evict_spilled_records();  // the stream read the spilled pages back in
  if (!wrote && kind == WriteKind::Flush && g_final_write_waiting.load()) return;  // abandoned: not an error
  if (wrote) {
    // The start marker has done its job once a part exists (unlink: async-signal-safe).
    if (!g_written) ::unlink((info.part_path + ".started").c_str());
    g_written = true;
    g_last_signature = sig;
    if (kind != WriteKind::Crash && kind != WriteKind::QuickExit) {
      g_last_had_hook_records = hook_records;
      if (g_hook_diag_keys == nullptr) g_hook_diag_keys = new std::set<std::string>();
      g_hook_diag_keys->clear();
      for (std::size_t i = core_diags; i < out.diagnostics.size(); ++i) {
        const auto key = out.diagnostics[i].key;
        if (key < out.strings.size()) g_hook_diag_keys->insert(out.strings[key]);
      }
    }
    log_message(LogLevel::Debug, "wrote %s (%llu ranges, %zu marks)", info.part_path.c_str(),
                static_cast<unsigned long long>(range_total), out.marks.size());
  } else if (!g_warned_write_failure) {
    g_warned_write_failure = true;
    log_message(LogLevel::Error, "cannot write part %s: %s", info.part_path.c_str(),
                error.c_str());
  }
}

// Crash path: whether every collector lock is free now. A lock held by the crashed thread
// itself never frees (try_lock fails for its owner too); one held by another thread for a
// moment does, so each is tried for up to ~50 ms. Taken and released at once: write_locked()
// takes them again through the snapshots.
bool crash_locks_free() noexcept {
  for (int i = 1; i < kCoreLocks; ++i) {
    std::mutex* m = core_lock(i);
    bool ok = false;
    for (int attempt = 0; attempt < 50 && !ok; ++attempt) {
      if (m->try_lock()) {
        m->unlock();
        ok = true;
      } else {
        const timespec ms{0, 1'000'000};
        ::nanosleep(&ms, nullptr);
      }
    }
    if (!ok) return false;
  }
  return true;
}

}  // namespace

void reset_write_state() noexcept {
  g_written = false;
  g_final_write_waiting.store(false);
  g_last_signature = Signature{};
  g_warned_write_failure = false;
  g_exit_written.store(false);
  g_last_had_hook_records = false;
}

bool exit_written() noexcept { return g_exit_written.load(); }

void write_part(WriteKind kind, int signal) noexcept {
  if (!collector_enabled() || t_in_write) return;  // a hook calling back is ignored
  if (kind != WriteKind::Crash && g_crashing.load()) return;
  t_in_write = true;
  // A flush in progress gives up, so this write does not wait for it (an exec's write lets later
  // flushes run again: the exec may fail and the process go on).
  if (kind != WriteKind::Flush) g_final_write_waiting.store(true);
  try {
    if (kind == WriteKind::Crash || kind == WriteKind::QuickExit) {
      if (kind == WriteKind::Crash) g_crashing.store(true);
      const std::int64_t crash_ns = now_ns();
      // The write lock is not held by this thread (t_in_write): another thread (the flusher)
      // is writing and will release it; wait up to 5 s (the crash handler's alarm bounds the
      // whole write), then keep the last written part.
      std::unique_lock<std::mutex> lock(write_mutex(), std::defer_lock);
      for (int attempt = 0; attempt < 5000 && !lock.try_lock(); ++attempt) {
        const timespec ms{0, 1'000'000};
        ::nanosleep(&ms, nullptr);
      }
      if (lock.owns_lock() && crash_locks_free()) {
        if (kind == WriteKind::QuickExit) g_exit_written.store(true);
        write_locked(kind, signal, crash_ns);
      } else if (kind == WriteKind::QuickExit) {
        log_message(LogLevel::Warn, "_exit: a collector lock stays taken; the part is not "
                    "rewritten (the last flushed part stays)");
      } else {
        log_message(LogLevel::Warn, "signal %d: a collector lock stays taken; the part is not "
                    "rewritten (the last flushed part stays)", signal);
      }
    } else {
      std::lock_guard<std::mutex> lock(write_mutex());
      // After the final write only another final write (more records at unload) may follow.
      if (kind == WriteKind::Exit) {
        g_exit_written.store(true);
        write_locked(kind, signal, INT64_MAX);
      } else if (!g_exit_written.load()) {
        write_locked(kind, signal, INT64_MAX);
      }
    }
  } catch (const std::exception& e) {
    log_message(LogLevel::Error, "writing the part failed: %s", e.what());
  } catch (...) {
    log_message(LogLevel::Error, "writing the part failed");
  }
  if (kind == WriteKind::Exec) g_final_write_waiting.store(false);
  t_in_write = false;
}

}  // namespace detail

void write_part_now() noexcept { detail::write_part(detail::WriteKind::Flush); }

}  // namespace amdahl::profiler
