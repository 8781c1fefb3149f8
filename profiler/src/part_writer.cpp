// Builds this process's RecordSet from the per-thread buffers and process tables, runs the
// registered part hooks, and writes the part file (tmp + rename via format::write_part).
// A later call rewrites the same file with everything recorded so far, and only when
// something new came.
#include <array>

#include "amdahl/format/part_file.hpp"
#include "collector_state.hpp"
#include "log.hpp"
#include "proc_info.hpp"

namespace amdahl::profiler {
namespace detail {
namespace {

using Signature = std::array<std::uint64_t, 12>;

// Guarded by write_mutex().
bool g_written = false;
Signature g_last_signature{};
bool g_warned_write_failure = false;
std::string g_command;  // read once per image (a forked child runs the same command line)
bool g_have_command = false;

thread_local bool t_in_write = false;

Signature signature_of(const format::RecordSet& rs, std::uint64_t closed_ranges) {
  std::uint64_t diag_total = 0;
  for (const auto& d : rs.diagnostics) diag_total += d.count;
  return Signature{rs.ranges.size(),  closed_ranges,      rs.marks.size(),
                   rs.threads.size(), rs.categories.size(), rs.api_calls.size(),
                   rs.gpu_ops.size(), rs.syncs.size(),    rs.devices.size(),
                   diag_total,        rs.strings.size(),  rs.processes.size()};
}

void collect_threads(format::RecordSet& out, std::uint32_t pid, std::int64_t write_ns,
                     std::uint64_t& closed, std::uint64_t& unclosed) {
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
      if (r == nullptr) break;
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

    const std::uint64_t nm = ts->marks.published();
    for (std::uint64_t i = 0; i < nm; ++i) {
      const LocalMark* m = ts->marks.at(i);
      if (m == nullptr) break;
      out.marks.push_back(format::MarkRec{pid, ts->tid, m->domain, m->name, m->category,
                                          m->ts_ns, unpack(m->payload)});
    }
  }
  // Threads named through nvtxNameOsThread that never made an NVTX call themselves.
  for (const auto& [tid, name] : overrides) {
    if (!seen.count(tid)) out.threads.push_back(format::ThreadRec{pid, tid, name});
  }
}

void write_locked() {
  const ProcessInfo info = process_info();
  if (info.part_path.empty()) return;
  const std::int64_t write_ns = now_ns();
  format::RecordSet out;

  std::uint64_t closed = 0;
  std::uint64_t unclosed = 0;
  collect_threads(out, info.pid, write_ns, closed, unclosed);

  for (auto c : categories_snapshot()) {
    c.pid = info.pid;
    out.categories.push_back(c);
  }

  auto diags = diagnostics_snapshot();
  if (unclosed > 0) diags.emplace_back("nvtx.unclosed_range", unclosed);
  for (const auto& [key, count] : diags) {
    out.diagnostics.push_back(format::DiagRec{info.pid, intern(key), count, format::kNoString});
  }

  if (!g_have_command) {
    g_command = read_command_line();
    g_have_command = true;
  }
  format::ProcessRec proc;
  proc.pid = info.pid;
  proc.ppid = info.ppid;
  proc.command = intern(g_command);
  proc.start_ns = info.start_ns;
  proc.end_ns = write_ns;
  proc.rank = read_rank();
  out.processes.push_back(proc);

  for (PartHook hook : hooks_snapshot()) hook(out);

  out.strings = strings_snapshot();

  const Signature sig = signature_of(out, closed);
  if (g_written && sig == g_last_signature) return;
  std::string error;
  if (format::write_part(out, info.part_path, &error)) {
    g_written = true;
    g_last_signature = sig;
    log_message(LogLevel::Debug, "wrote %s (%zu ranges, %zu marks)", info.part_path.c_str(),
                out.ranges.size(), out.marks.size());
  } else if (!g_warned_write_failure) {
    g_warned_write_failure = true;
    log_message(LogLevel::Error, "cannot write part %s: %s", info.part_path.c_str(),
                error.c_str());
  }
}

}  // namespace

void reset_write_state() noexcept {
  g_written = false;
  g_last_signature = Signature{};
  g_warned_write_failure = false;
}

}  // namespace detail

void write_part_now() noexcept {
  if (!collector_enabled() || detail::t_in_write) return;  // a hook calling back is ignored
  detail::t_in_write = true;
  try {
    std::lock_guard<std::mutex> lock(detail::write_mutex());
    detail::write_locked();
  } catch (const std::exception& e) {
    detail::log_message(detail::LogLevel::Error, "writing the part failed: %s", e.what());
  } catch (...) {
    detail::log_message(detail::LogLevel::Error, "writing the part failed");
  }
  detail::t_in_write = false;
}

}  // namespace amdahl::profiler
