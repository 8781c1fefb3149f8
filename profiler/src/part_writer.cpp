// Builds this process's RecordSet from the per-thread buffers and process tables, runs the
// registered part hooks, and writes the part file (tmp + rename via format::write_part).
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

#include "amdahl/format/part_file.hpp"
#include "collector_state.hpp"
#include "log.hpp"
#include "proc_info.hpp"

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

Signature signature_of(const format::RecordSet& rs, std::uint64_t closed_ranges) {
  std::uint64_t diag_total = 0;
  for (const auto& d : rs.diagnostics) diag_total += d.count;
  return Signature{rs.ranges.size(),  closed_ranges,      rs.marks.size(),
                   rs.threads.size(), rs.categories.size(), rs.api_calls.size(),
                   rs.gpu_ops.size(), rs.syncs.size(),    rs.devices.size(),
                   diag_total,        rs.strings.size(),  rs.processes.size(),
                   rs.event_records.size()};
}

// limit_ns: records that start later are left out (the crash write keeps what existed at the
// signal, so other threads that go on recording cannot make it endless). Each thread's records
// are in start order.
void collect_threads(format::RecordSet& out, std::uint32_t pid, std::int64_t write_ns,
                     std::int64_t limit_ns, std::uint64_t& closed, std::uint64_t& unclosed) {
  const auto overrides = thread_name_overrides_snapshot();
  std::unordered_map<std::uint64_t, bool> seen;
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

    const auto base = static_cast<std::int64_t>(out.ranges.size());
    const std::uint64_t nr = ts->ranges.published();
    for (std::uint64_t i = 0; i < nr; ++i) {
      const LocalRange* r = ts->ranges.at(i);
      if (r == nullptr || r->start_ns > limit_ns) break;
      format::RangeRec rec;
      rec.pid = pid;
      rec.tid = ts->tid;
      rec.domain = r->domain;
      rec.name = r->name;
      rec.category = r->category;
      rec.kind = r->kind;
      rec.depth = r->depth;
      rec.parent = r->parent_local < 0 ? -1 : base + r->parent_local;
      rec.start_ns = r->start_ns;
      rec.payload = unpack(PackedPayload{r->payload_bits, r->payload_kind});
      const std::int64_t end = r->end_ns.load(std::memory_order_acquire);
      if (end == 0) {
        rec.end_ns = write_ns < rec.start_ns ? rec.start_ns : write_ns;
        rec.unclosed = true;
        rec.end_tid = 0;
        ++unclosed;
      } else {
        rec.end_ns = end;
        const std::uint32_t et = r->end_tid.load(std::memory_order_acquire);
        rec.end_tid = et != 0 ? et : ts->tid;
        ++closed;
      }
      out.ranges.push_back(rec);
    }
    // CPU times of closed `amdahl` ranges (published before their end: every range seen closed
    // above has its entry here, if it got one). A range seen open keeps -1.
    const auto added = static_cast<std::uint64_t>(static_cast<std::int64_t>(out.ranges.size()) - base);
    const std::uint64_t nc = ts->cpu.published();
    for (std::uint64_t i = 0; i < nc; ++i) {
      const LocalCpu* c = ts->cpu.at(i);
      if (c == nullptr) break;
      if (c->local >= added) continue;
      format::RangeRec& rec = out.ranges[static_cast<std::size_t>(base) + c->local];
      if (rec.unclosed) continue;
      rec.thread_cpu_ns = c->thread_cpu_ns;
      rec.process_cpu_ns = c->process_cpu_ns;
    }

    const std::uint64_t nm = ts->marks.published();
    for (std::uint64_t i = 0; i < nm; ++i) {
      const LocalMark* m = ts->marks.at(i);
      if (m == nullptr || m->ts_ns > limit_ns) break;
      out.marks.push_back(format::MarkRec{pid, ts->tid, m->domain, m->name, m->category,
                                          m->ts_ns, unpack(m->payload)});
    }
  }
  // Threads named through nvtxNameOsThread that never made an NVTX call themselves.
  for (const auto& [tid, name] : overrides) {
    if (!seen.count(tid)) out.threads.push_back(format::ThreadRec{pid, tid, name});
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

  std::uint64_t closed = 0;
  std::uint64_t unclosed = 0;
  collect_threads(out, info.pid, write_ns, limit_ns, closed, unclosed);

  for (auto c : categories_snapshot()) {
    c.pid = info.pid;
    out.categories.push_back(c);
  }

  auto diags = diagnostics_snapshot();
  if (unclosed > 0) diags.emplace_back("nvtx.unclosed_range", unclosed);
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

  const Signature sig = signature_of(out, closed);
  if (g_written && sig == g_last_signature) return;
  std::string error;
  if (format::write_part(out, info.part_path, &error)) {
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
    log_message(LogLevel::Debug, "wrote %s (%zu ranges, %zu marks)", info.part_path.c_str(),
                out.ranges.size(), out.marks.size());
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
  t_in_write = false;
}

}  // namespace detail

void write_part_now() noexcept { detail::write_part(detail::WriteKind::Flush); }

}  // namespace amdahl::profiler
