// Saving and loading the SQLite profile (.amdahl): the bulk insert of a RecordSet in one
// transaction into `path`.tmp then a rename, and the checked load that turns every kind of bad
// input (missing, not SQLite, truncated, not a profile, other format version) into one
// ProfileError sentence. The schema itself is in profile_schema.cpp.
#include "amdahl/format/profile_store.hpp"
#include "amdahl/format/output_file.hpp"
#include "amdahl/format/input_file.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <set>
#include <exception>
#include <string_view>
#include <thread>

#include "profile_guard.hpp"
#include "profile_schema.hpp"
#include "record_checks.hpp"
#include "sqlite_db.hpp"

#ifndef AMDAHL_VERSION_STRING
#define AMDAHL_VERSION_STRING "unknown"
#endif

namespace amdahl::format {
namespace {

using detail::Db;
using detail::enum_name;
using detail::SqliteError;
using detail::Stmt;

std::int64_t s64(std::uint64_t v) { return static_cast<std::int64_t>(v); }  // bit pattern

// Binds a payload to three consecutive parameters: kind, payload_int, payload_double.
void bind_payload(Stmt& st, int first, const Payload& p) {
  st.bind_text(first, enum_name(p.kind));
  if (p.kind == PayloadKind::Int64 || p.kind == PayloadKind::UInt64) st.bind(first + 1, p.i);
  else st.bind_null(first + 1);
  if (p.kind == PayloadKind::Double) st.bind(first + 2, p.d);
  else st.bind_null(first + 2);
}

void write_meta(const Db& db, const Profile& profile) {
  std::map<std::string, std::string> meta = profile.meta;
  meta["format_version"] = std::to_string(kProfileFormatVersion);
  meta.try_emplace("amdahl_version", AMDAHL_VERSION_STRING);
  meta.try_emplace("clock", "CLOCK_MONOTONIC");
  const RecordSet& r = profile.records;
  meta["count.strings"] = std::to_string(r.strings.size());
  meta["count.processes"] = std::to_string(r.processes.size());
  meta["count.threads"] = std::to_string(r.threads.size());
  meta["count.categories"] = std::to_string(r.categories.size());
  meta["count.ranges"] = std::to_string(r.ranges.size());
  meta["count.marks"] = std::to_string(r.marks.size());
  meta["count.api_calls"] = std::to_string(r.api_calls.size());
  meta["count.gpu_ops"] = std::to_string(r.gpu_ops.size());
  meta["count.syncs"] = std::to_string(r.syncs.size());
  meta["count.event_records"] = std::to_string(r.event_records.size());
  meta["count.devices"] = std::to_string(r.devices.size());
  meta["count.diagnostics"] = std::to_string(r.diagnostics.size());
  Stmt st(db, "INSERT INTO meta(key, value) VALUES(?1, ?2)");
  for (const auto& [k, v] : meta) {
    st.bind_text(1, k.c_str(), static_cast<int>(k.size()));
    st.bind_text(2, v.c_str(), static_cast<int>(v.size()));
    st.run();
  }
}

// Inserts a whole vector with `INSERT INTO table VALUES (...),(...),...`: kBatch rows per
// statement execution (one VDBE run per batch instead of per row), the tail row by row.
// bind(st, base, rec, id) binds one record's `ncols` columns at parameters base+1..base+ncols.
template <class Rec, class Bind>
void insert_all(const Db& db, const char* table, int ncols, const std::vector<Rec>& v, Bind bind) {
  constexpr std::size_t kBatch = 32;
  auto sql = [&](std::size_t rows) {
    std::string s = std::string("INSERT INTO ") + table + " VALUES ";
    for (std::size_t i = 0; i < rows; ++i) {
      s += i ? ",(" : "(";
      for (int c = 0; c < ncols; ++c) s += c ? ",?" : "?";
      s += ")";
    }
    return s;
  };
  std::size_t i = 0;
  if (v.size() >= kBatch) {
    Stmt st(db, sql(kBatch).c_str());
    for (; i + kBatch <= v.size(); i += kBatch) {
      for (std::size_t k = 0; k < kBatch; ++k)
        bind(st, static_cast<int>(k) * ncols, v[i + k], static_cast<std::int64_t>(i + k));
      st.run();
    }
  }
  if (i < v.size()) {
    Stmt st(db, sql(1).c_str());
    for (; i < v.size(); ++i) {
      bind(st, 0, v[i], static_cast<std::int64_t>(i));
      st.run();
    }
  }
}

void write_records(const Db& db, const RecordSet& r) {
  insert_all(db, "strings", 2, r.strings, [](Stmt& st, int b, const std::string& s, std::int64_t id) {
    st.bind(b + 1, id);
    st.bind_text(b + 2, s.c_str(), static_cast<int>(s.size()));
  });
  insert_all(db, "processes", 10, r.processes, [](Stmt& st, int b, const ProcessRec& p, std::int64_t id) {
    st.bind(b + 1, id); st.bind(b + 2, std::int64_t{p.pid}); st.bind(b + 3, std::int64_t{p.ppid});
    st.bind(b + 4, std::int64_t{p.command}); st.bind(b + 5, p.start_ns); st.bind(b + 6, p.end_ns);
    st.bind(b + 7, std::int64_t{p.rank}); st.bind(b + 8, std::int64_t{p.cpus_online});
    st.bind(b + 9, std::int64_t{p.cpus_allowed}); st.bind(b + 10, std::int64_t{p.omp_threads});
  });
  insert_all(db, "threads", 4, r.threads, [](Stmt& st, int b, const ThreadRec& t, std::int64_t id) {
    st.bind(b + 1, id); st.bind(b + 2, std::int64_t{t.pid}); st.bind(b + 3, s64(t.tid)); st.bind(b + 4, std::int64_t{t.name});
  });
  insert_all(db, "categories", 5, r.categories, [](Stmt& st, int b, const CategoryRec& c, std::int64_t id) {
    st.bind(b + 1, id); st.bind(b + 2, std::int64_t{c.pid}); st.bind(b + 3, std::int64_t{c.domain});
    st.bind(b + 4, std::int64_t{c.category}); st.bind(b + 5, std::int64_t{c.name});
  });
  insert_all(db, "ranges", 18, r.ranges, [](Stmt& st, int b, const RangeRec& x, std::int64_t id) {
    st.bind(b + 1, id); st.bind(b + 2, std::int64_t{x.pid}); st.bind(b + 3, s64(x.tid)); st.bind(b + 4, s64(x.end_tid));
    st.bind(b + 5, std::int64_t{x.domain}); st.bind(b + 6, std::int64_t{x.name}); st.bind(b + 7, std::int64_t{x.category});
    st.bind_text(b + 8, enum_name(x.kind)); st.bind(b + 9, std::int64_t{x.depth});
    if (x.parent >= 0) st.bind(b + 10, x.parent);
    else st.bind_null(b + 10);
    st.bind(b + 11, x.start_ns); st.bind(b + 12, x.end_ns); st.bind(b + 13, std::int64_t{x.unclosed ? 1 : 0});
    bind_payload(st, b + 14, x.payload);
    if (x.thread_cpu_ns >= 0) st.bind(b + 17, x.thread_cpu_ns);  // unknown (-1): NULL
    else st.bind_null(b + 17);
    if (x.process_cpu_ns >= 0) st.bind(b + 18, x.process_cpu_ns);
    else st.bind_null(b + 18);
  });
  insert_all(db, "marks", 10, r.marks, [](Stmt& st, int b, const MarkRec& m, std::int64_t id) {
    st.bind(b + 1, id); st.bind(b + 2, std::int64_t{m.pid}); st.bind(b + 3, s64(m.tid)); st.bind(b + 4, std::int64_t{m.domain});
    st.bind(b + 5, std::int64_t{m.name}); st.bind(b + 6, std::int64_t{m.category}); st.bind(b + 7, m.ts_ns);
    bind_payload(st, b + 8, m.payload);
  });
  insert_all(db, "api_calls", 9, r.api_calls, [](Stmt& st, int b, const ApiCallRec& a, std::int64_t id) {
    st.bind(b + 1, id); st.bind(b + 2, std::int64_t{a.pid}); st.bind(b + 3, s64(a.tid)); st.bind_text(b + 4, enum_name(a.api));
    st.bind(b + 5, std::int64_t{a.cbid}); st.bind(b + 6, std::int64_t{a.name}); st.bind(b + 7, a.start_ns);
    st.bind(b + 8, a.end_ns); st.bind(b + 9, std::int64_t{a.correlation_id});
  });
  insert_all(db, "gpu_ops", 15, r.gpu_ops, [](Stmt& st, int b, const GpuOpRec& g, std::int64_t id) {
    st.bind(b + 1, id); st.bind(b + 2, std::int64_t{g.pid}); st.bind(b + 3, std::int64_t{g.device});
    st.bind(b + 4, std::int64_t{g.context}); st.bind(b + 5, std::int64_t{g.stream}); st.bind_text(b + 6, enum_name(g.kind));
    st.bind(b + 7, std::int64_t{g.name}); st.bind(b + 8, g.start_ns); st.bind(b + 9, g.end_ns);
    st.bind(b + 10, std::int64_t{g.correlation_id}); st.bind(b + 11, s64(g.bytes));
    st.bind_text(b + 12, enum_name(g.copy_kind)); st.bind_text(b + 13, enum_name(g.src_kind));
    st.bind_text(b + 14, enum_name(g.dst_kind)); st.bind(b + 15, std::int64_t{g.graph_id});
  });
  insert_all(db, "syncs", 9, r.syncs, [](Stmt& st, int b, const SyncRec& s, std::int64_t id) {
    st.bind(b + 1, id); st.bind(b + 2, std::int64_t{s.pid}); st.bind(b + 3, std::int64_t{s.context});
    st.bind(b + 4, std::int64_t{s.stream}); st.bind(b + 5, std::int64_t{s.event}); st.bind_text(b + 6, enum_name(s.kind));
    st.bind(b + 7, s.start_ns); st.bind(b + 8, s.end_ns); st.bind(b + 9, std::int64_t{s.correlation_id});
  });
  insert_all(db, "event_records", 8, r.event_records, [](Stmt& st, int b, const EventRecordRec& e, std::int64_t id) {
    st.bind(b + 1, id); st.bind(b + 2, std::int64_t{e.pid}); st.bind(b + 3, std::int64_t{e.device});
    st.bind(b + 4, std::int64_t{e.context}); st.bind(b + 5, std::int64_t{e.stream}); st.bind(b + 6, std::int64_t{e.event});
    st.bind(b + 7, std::int64_t{e.correlation_id}); st.bind(b + 8, e.device_ts_ns);
  });
  insert_all(db, "devices", 8, r.devices, [](Stmt& st, int b, const DeviceRec& d, std::int64_t id) {
    st.bind(b + 1, id); st.bind(b + 2, std::int64_t{d.pid}); st.bind(b + 3, std::int64_t{d.device});
    st.bind(b + 4, std::int64_t{d.name}); st.bind(b + 5, s64(d.global_memory)); st.bind(b + 6, std::int64_t{d.cc_major});
    st.bind(b + 7, std::int64_t{d.cc_minor}); st.bind(b + 8, std::int64_t{d.sm_count});
  });
  insert_all(db, "diagnostics", 5, r.diagnostics, [](Stmt& st, int b, const DiagRec& d, std::int64_t id) {
    st.bind(b + 1, id); st.bind(b + 2, std::int64_t{d.pid}); st.bind(b + 3, std::int64_t{d.key});
    st.bind(b + 4, s64(d.count)); st.bind(b + 5, std::int64_t{d.detail});
  });
}

// Moves the finished temporary file into place. Without `overwrite`, link() makes the refusal
// atomic (it fails with EEXIST if `path` appeared meanwhile).
// ---- loading ----------------------------------------------------------------------------

std::int64_t scalar(const Db& db, const char* sql) {
  Stmt st(db, sql);
  return st.next() ? st.i64(0) : 0;
}


struct Loader {
  const std::string& path;
  const Db& db;
  std::int64_t file_size;
  int version;                         // the profile's format_version (checked)
  bool analysis_columns_only = false;  // LoadOptions
  detail::LoadDeadline* deadline;                      // shared by every connection of the load
  const std::function<void(std::uint64_t)>& on_rows;  // LoadOptions (may be empty)
  std::atomic<std::uint64_t>& rows_read;               // all tables, all threads
  mutable std::atomic<std::size_t> names_cut{0};       // strings cut to kMaxNameBytes

  // Progress: `n` more rows read; the calling thread (`report`) tells on_rows.
  void tick(std::uint64_t n, bool report) const {
    const std::uint64_t total = rows_read.fetch_add(n, std::memory_order_relaxed) + n;
    if (report && on_rows) on_rows(total);
  }
  static constexpr std::uint64_t kTickRows = 1 << 16;

  [[noreturn]] void corrupt(const std::string& why) const {
    throw ProfileError(path + " is corrupt: " + why);
  }

  template <class E> E enum_col(const Stmt& st, int c, const char* column) const {
    E v{};
    const std::string_view t = st.view(c);
    if (!detail::enum_from_name(t, v)) corrupt("unknown value '" + std::string(t) + "' in " + column);
    return v;
  }

  // A timestamp column (column 0 is the row's id): NULL is no time at all, not 0.
  std::int64_t ts(const Stmt& st, int c, const char* column) const {
    if (st.is_null(c)) corrupt(std::string(column) + " is NULL (row id " + std::to_string(st.i64(0)) + ")");
    return st.i64(c);
  }

  Payload payload(const Stmt& st, int first, const char* table) const {
    Payload p;
    p.kind = enum_col<PayloadKind>(st, first, table);
    p.i = st.i64(first + 1);  // NULL reads as 0
    p.d = st.f64(first + 2);
    return p;
  }

  // Row count the writer recorded for `table` (0 when absent), used to size the vectors before
  // reading. A corrupt count must not allocate more than the file can hold: every row of a
  // table takes at least 4 bytes of the file (cell pointer, payload size, rowid, record header).
  std::size_t hint(const Profile& p, const char* table) const {
    const auto it = p.meta.find(std::string("count.") + table);
    if (it == p.meta.end()) return 0;
    std::size_t n = 0;
    std::from_chars(it->second.data(), it->second.data() + it->second.size(), n);
    return std::min<std::size_t>(n, static_cast<std::size_t>(file_size / 4));
  }

  // Threads to read a table of n rows with: big tables are read in id slices, each on its own
  // read-only connection (SQLite's per-row decoding is the cost, and it parallelises).
  // The CPUs this process may run on (taskset), not the machine's: more threads than that only
  // take turns.
  static unsigned parallelism(std::size_t n) {
    if (n < 1'000'000 || sqlite3_threadsafe() == 0) return 1;
    unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    if (sched_getaffinity(0, sizeof cpus, &cpus) == 0) hw = std::max(1, CPU_COUNT(&cpus));
    return static_cast<unsigned>(std::min<std::size_t>({hw, 8, n / 500'000}));
  }

  // Reads `SELECT id, <cols> FROM table` in id order into v (make(st) builds one record from
  // columns 1...), checking that ids are exactly 0..n-1.
  template <class Rec, class Make>
  void fill(const Profile& p, const char* table, const char* cols, std::vector<Rec>& v, Make make) const {
    const std::size_t n = hint(p, table);
    const std::string select = std::string("SELECT id, ") + cols + " FROM " + table;
    const unsigned threads = parallelism(n);
    if (threads <= 1) {
      v.reserve(n);
      Stmt st(db, (select + " ORDER BY id").c_str());
      std::int64_t expect = 0;
      while (st.next()) {
        if (st.i64(0) != expect) corrupt(std::string("table ") + table + " has a gap at id " + std::to_string(expect));
        ++expect;
        v.push_back(make(st));
        if ((static_cast<std::uint64_t>(expect) & (kTickRows - 1)) == 0) tick(kTickRows, true);
      }
      return;  // check_counts compares the size with the count the writer recorded
    }
    v.resize(n);
    std::vector<std::exception_ptr> errors(threads);
    auto slice = [&](unsigned k) {
      try {
        const std::size_t lo = n * k / threads, hi = n * (k + 1) / threads;
        Db conn(path, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX);
        detail::harden_reading_connection(conn, *deadline);
        Stmt st(conn, (select + " WHERE id >= ?1 AND id < ?2 ORDER BY id").c_str());
        st.bind(1, static_cast<std::int64_t>(lo));
        st.bind(2, static_cast<std::int64_t>(hi));
        std::size_t expect = lo;
        while (st.next()) {
          if (st.i64(0) != static_cast<std::int64_t>(expect))
            corrupt(std::string("table ") + table + " has a gap at id " + std::to_string(expect));
          v[expect++] = make(st);
          if (((expect - lo) & (kTickRows - 1)) == 0) tick(kTickRows, k == 0);
        }
        if (expect != hi) corrupt(std::string("table ") + table + " has a gap at id " + std::to_string(expect));
      } catch (...) {
        errors[k] = std::current_exception();
      }
    };
    std::vector<std::thread> pool;
    for (unsigned k = 1; k < threads; ++k) pool.emplace_back(slice, k);
    slice(0);
    for (std::thread& t : pool) t.join();
    for (const std::exception_ptr& e : errors)
      if (e) std::rethrow_exception(e);
    const std::int64_t last = scalar(db, (std::string("SELECT max(id) FROM ") + table).c_str());
    if (last != static_cast<std::int64_t>(n) - 1)
      corrupt(std::string("table ") + table + " has rows beyond the " + std::to_string(n) + " that were written");
  }

  void load(Profile& out) const {
    RecordSet& r = out.records;
    r.strings.clear();
    fill(out, "strings", "value", r.strings, [this](const Stmt& st) {
      std::string s(st.view(1));
      if (detail::cut_long_name(s)) names_cut.fetch_add(1, std::memory_order_relaxed);
      return s;
    });
    if (r.strings.empty() || !r.strings[0].empty()) corrupt("string 0 must be the empty string");
    auto u32 = [](const Stmt& st, int c) { return static_cast<std::uint32_t>(st.i64(c)); };
    auto u64 = [](const Stmt& st, int c) { return static_cast<std::uint64_t>(st.i64(c)); };
    if (version >= 3) {
      fill(out, "processes", "pid, ppid, command_id, start_ns, end_ns, rank, cpus_online, cpus_allowed, omp_threads",
           r.processes, [&](const Stmt& st) {
             return ProcessRec{u32(st, 1), u32(st, 2), u32(st, 3), st.i64(4), st.i64(5), u32(st, 6),
                               u32(st, 7),  u32(st, 8), u32(st, 9)};
           });
    } else {  // formats 1 and 2: CPU counts unknown (0)
      fill(out, "processes", "pid, ppid, command_id, start_ns, end_ns, rank", r.processes, [&](const Stmt& st) {
        return ProcessRec{u32(st, 1), u32(st, 2), u32(st, 3), st.i64(4), st.i64(5), u32(st, 6)};
      });
    }
    fill(out, "threads", "pid, tid, name_id", r.threads, [&](const Stmt& st) {
      return ThreadRec{u32(st, 1), u64(st, 2), u32(st, 3)};
    });
    fill(out, "categories", "pid, domain_id, category, name_id", r.categories, [&](const Stmt& st) {
      return CategoryRec{u32(st, 1), u32(st, 2), u32(st, 3), u32(st, 4)};
    });
    if (analysis_columns_only) {  // the columns the analysis reads (LoadOptions)
      // The per-range CPU times (format 3) are read too: the analysis shows them (cpu_use.hpp);
      // and the integer payloads (a communication range's bytes: ranks.hpp).
      const std::string cols = std::string("pid, tid, domain_id, name_id, start_ns, end_ns, payload_kind, payload_int") +
                               (version >= 3 ? ", thread_cpu_ns, process_cpu_ns" : "");
      fill(out, "ranges", cols.c_str(), r.ranges, [&](const Stmt& st) {
        RangeRec x;
        x.pid = u32(st, 1); x.tid = u64(st, 2); x.end_tid = x.tid; x.domain = u32(st, 3); x.name = u32(st, 4);
        x.start_ns = ts(st, 5, "ranges.start_ns"); x.end_ns = ts(st, 6, "ranges.end_ns");
        x.payload.kind = enum_col<PayloadKind>(st, 7, "ranges.payload_kind");
        x.payload.i = st.i64(8);
        if (version >= 3) {
          x.thread_cpu_ns = st.is_null(9) ? -1 : st.i64(9);
          x.process_cpu_ns = st.is_null(10) ? -1 : st.i64(10);
        }
        return x;
      });
    } else {
    // Formats 1 and 2 have no CPU columns: thread_cpu_ns and process_cpu_ns stay -1 (unknown).
    const std::string cols = std::string(
        "pid, tid, end_tid, domain_id, name_id, category, kind, depth, parent, start_ns, end_ns, unclosed, "
        "payload_kind, payload_int, payload_double") + (version >= 3 ? ", thread_cpu_ns, process_cpu_ns" : "");
    fill(out, "ranges", cols.c_str(), r.ranges, [&](const Stmt& st) {
           RangeRec x;
           x.pid = u32(st, 1); x.tid = u64(st, 2); x.end_tid = u64(st, 3); x.domain = u32(st, 4);
           x.name = u32(st, 5); x.category = u32(st, 6); x.kind = enum_col<RangeKind>(st, 7, "ranges.kind");
           x.depth = static_cast<std::int32_t>(st.i64(8)); x.parent = st.is_null(9) ? -1 : st.i64(9);
           x.start_ns = ts(st, 10, "ranges.start_ns"); x.end_ns = ts(st, 11, "ranges.end_ns");
           x.unclosed = st.i64(12) != 0;
           x.payload = payload(st, 13, "ranges.payload_kind");
           if (version >= 3) {
             x.thread_cpu_ns = st.is_null(16) ? -1 : st.i64(16);
             x.process_cpu_ns = st.is_null(17) ? -1 : st.i64(17);
           }
           return x;
         });
    }
    const auto n_ranges = static_cast<std::int64_t>(r.ranges.size());
    for (const RangeRec& x : r.ranges)
      if (x.parent >= n_ranges) corrupt("a range's parent " + std::to_string(x.parent) + " does not exist");
    fill(out, "marks", "pid, tid, domain_id, name_id, category, ts_ns, payload_kind, payload_int, payload_double",
         r.marks, [&](const Stmt& st) {
           return MarkRec{u32(st, 1), u64(st, 2), u32(st, 3), u32(st, 4), u32(st, 5), ts(st, 6, "marks.ts_ns"),
                          payload(st, 7, "marks.payload_kind")};
         });
    if (analysis_columns_only) {
      fill(out, "api_calls", "pid, tid, name_id, start_ns, end_ns, correlation_id", r.api_calls, [&](const Stmt& st) {
        ApiCallRec a;
        a.pid = u32(st, 1); a.tid = u64(st, 2); a.name = u32(st, 3);
        a.start_ns = ts(st, 4, "api_calls.start_ns"); a.end_ns = ts(st, 5, "api_calls.end_ns");
        a.correlation_id = u32(st, 6);
        return a;
      });
      fill(out, "gpu_ops", "pid, device, stream, kind, name_id, start_ns, end_ns, correlation_id, copy_kind", r.gpu_ops,
           [&](const Stmt& st) {
             GpuOpRec g;
             g.pid = u32(st, 1); g.device = u32(st, 2); g.stream = u32(st, 3);
             g.kind = enum_col<GpuOpKind>(st, 4, "gpu_ops.kind"); g.name = u32(st, 5);
             g.start_ns = ts(st, 6, "gpu_ops.start_ns"); g.end_ns = ts(st, 7, "gpu_ops.end_ns");
             g.correlation_id = u32(st, 8);
             g.copy_kind = enum_col<CopyKind>(st, 9, "gpu_ops.copy_kind");
             return g;
           });
    } else {
    fill(out, "api_calls", "pid, tid, api, cbid, name_id, start_ns, end_ns, correlation_id", r.api_calls,
         [&](const Stmt& st) {
           return ApiCallRec{u32(st, 1), u64(st, 2), enum_col<ApiKind>(st, 3, "api_calls.api"), u32(st, 4),
                             u32(st, 5), ts(st, 6, "api_calls.start_ns"), ts(st, 7, "api_calls.end_ns"), u32(st, 8)};
         });
    fill(out, "gpu_ops",
         "pid, device, context, stream, kind, name_id, start_ns, end_ns, correlation_id, bytes, copy_kind, "
         "src_kind, dst_kind, graph_id",
         r.gpu_ops, [&](const Stmt& st) {
           GpuOpRec g;
           g.pid = u32(st, 1); g.device = u32(st, 2); g.context = u32(st, 3); g.stream = u32(st, 4);
           g.kind = enum_col<GpuOpKind>(st, 5, "gpu_ops.kind"); g.name = u32(st, 6);
           g.start_ns = ts(st, 7, "gpu_ops.start_ns"); g.end_ns = ts(st, 8, "gpu_ops.end_ns");
           g.correlation_id = u32(st, 9); g.bytes = u64(st, 10);
           g.copy_kind = enum_col<CopyKind>(st, 11, "gpu_ops.copy_kind");
           g.src_kind = enum_col<MemKind>(st, 12, "gpu_ops.src_kind");
           g.dst_kind = enum_col<MemKind>(st, 13, "gpu_ops.dst_kind"); g.graph_id = u32(st, 14);
           return g;
         });
    }
    fill(out, "syncs", "pid, context, stream, event, kind, start_ns, end_ns, correlation_id", r.syncs,
         [&](const Stmt& st) {
           return SyncRec{u32(st, 1), u32(st, 2), u32(st, 3), u32(st, 4), enum_col<SyncKind>(st, 5, "syncs.kind"),
                          ts(st, 6, "syncs.start_ns"), ts(st, 7, "syncs.end_ns"), u32(st, 8)};
         });
    if (version >= 2) {  // format 1 had no event_records table: none
      fill(out, "event_records", "pid, device, context, stream, event, correlation_id, device_ts_ns", r.event_records,
           [&](const Stmt& st) {
             return EventRecordRec{u32(st, 1), u32(st, 2), u32(st, 3), u32(st, 4), u32(st, 5), u32(st, 6), st.i64(7)};
           });
    }
    fill(out, "devices", "pid, device, name_id, global_memory, cc_major, cc_minor, sm_count", r.devices,
         [&](const Stmt& st) {
           return DeviceRec{u32(st, 1), u32(st, 2), u32(st, 3), u64(st, 4), u32(st, 5), u32(st, 6), u32(st, 7)};
         });
    fill(out, "diagnostics", "pid, key_id, count, detail_id", r.diagnostics, [&](const Stmt& st) {
      return DiagRec{u32(st, 1), u32(st, 2), u64(st, 3), u32(st, 4)};
    });
  }

  // The writer records each table's row count in meta; a mismatch means lost rows.
  void check_counts(const Profile& p) const {
    const RecordSet& r = p.records;
    const std::pair<const char*, std::size_t> counts[] = {
        {"strings", r.strings.size()}, {"processes", r.processes.size()}, {"threads", r.threads.size()},
        {"categories", r.categories.size()}, {"ranges", r.ranges.size()}, {"marks", r.marks.size()},
        {"api_calls", r.api_calls.size()}, {"gpu_ops", r.gpu_ops.size()}, {"syncs", r.syncs.size()},
        {"devices", r.devices.size()}, {"diagnostics", r.diagnostics.size()}};
    for (const auto& [table, n] : counts) check_count(p, table, n);
    if (version >= 2) check_count(p, "event_records", r.event_records.size());  // not read from format 1
  }

  void check_count(const Profile& p, const char* table, std::size_t n) const {
    const auto it = p.meta.find(std::string("count.") + table);
    if (it == p.meta.end()) return;
    if (it->second != std::to_string(n))
      corrupt(std::string("table ") + table + " has " + std::to_string(n) + " rows where " + it->second +
              " were written");
  }
};

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

// Names cut to kMaxNameBytes when read: one diagnostic with their count (loader.names_cut).
void note_cut_names(RecordSet& r, std::size_t cut) {
  const auto id = [&r](std::string s) {
    r.strings.push_back(std::move(s));
    return static_cast<StrId>(r.strings.size() - 1);
  };
  r.diagnostics.push_back({0, id("load.long_names_truncated"), cut,
                           id(std::to_string(cut) + " name(s) longer than " + std::to_string(detail::kMaxNameBytes) +
                              " bytes were cut to that length when the profile was read")});
}

// Opens the file ourselves first so that a missing or unreadable file gets the OS's reason
// (SQLite would only say "unable to open database file"), and so that only a regular file
// reaches SQLite: a FIFO would block its open, a device be read without end (input_file.hpp).
std::int64_t check_readable(const std::string& path) {
  std::uint64_t size = 0;
  try {
    size = InputFile(path, "profile", kNoSizeLimit).size();
  } catch (const InputFileError& e) {
    throw ProfileError("cannot open " + path + ": " + e.reason());
  }
  if (size == 0) throw ProfileError(path + " is not an amdahl profile: the file is empty");
  return static_cast<std::int64_t>(size);
}


// Returns the profile's format version, one this amdahl reads; throws for any other.
int check_version(const std::string& path, const std::map<std::string, std::string>& meta) {
  const auto it = meta.find("format_version");
  if (it == meta.end()) throw ProfileError(path + " is not an amdahl profile: its meta table has no format_version");
  const std::string& v = it->second;
  long long version = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), version);
  const std::string reads = kOldestProfileFormatVersion == kProfileFormatVersion
                                ? "; this one reads format " + std::to_string(kProfileFormatVersion)
                                : "; this one reads formats " + std::to_string(kOldestProfileFormatVersion) + " to " +
                                      std::to_string(kProfileFormatVersion);
  if (ec != std::errc{} || end != v.data() + v.size())
    throw ProfileError(path + " has an unknown profile format version '" + v + "'" + reads);
  if (version > kProfileFormatVersion)
    throw ProfileError(path + " was written by a newer amdahl (format " + v + ")" + reads);
  if (version < kOldestProfileFormatVersion)
    throw ProfileError(path + " has profile format " + v + ", which this amdahl no longer reads" + reads);
  return static_cast<int>(version);
}

}  // namespace

void save_profile(const Profile& profile, const std::string& path, bool overwrite) {
  if (path.empty()) throw ProfileError("cannot write a profile to an empty file name");
  struct stat sb {};
  if (!overwrite && ::lstat(path.c_str(), &sb) == 0)  // lstat: a dangling symbolic link is there too
    throw ProfileError("refusing to overwrite " + path + ": the file already exists");
  try {
    // A temporary of this call's own (two saves to one path never share one; output_file.hpp).
    OutputFile out(path, false);
    {
      Db db(out.write_path(), SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX);
      // The file is private until the rename: no journal, no syncs; big pages for a fast scan.
      db.exec("PRAGMA page_size=65536; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; "
              "PRAGMA locking_mode=EXCLUSIVE; PRAGMA temp_store=MEMORY; PRAGMA cache_size=-131072;");
      db.exec("BEGIN");
      db.exec(detail::kSchemaSql);
      write_meta(db, profile);
      write_records(db, profile.records);
      db.exec(detail::kIndexSql);
      db.exec(detail::kViewsSql);
      db.exec("COMMIT");
    }
    out.commit(overwrite);
  } catch (const SqliteError& e) {
    throw ProfileError("cannot write profile " + path + ": " + e.what());
  } catch (const OutputError& e) {
    throw ProfileError(e.what());
  }
}

Profile load_profile(const std::string& path, const LoadOptions& options) {
  const std::int64_t file_size = check_readable(path);
  Profile out;
  detail::LoadDeadline deadline = detail::LoadDeadline::for_file(file_size);
  try {
    Db db(path, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX);
    detail::harden_reading_connection(db, deadline);
    // Reading the header fails with SQLITE_NOTADB for a file that is not SQLite at all.
    const std::int64_t page_size = scalar(db, "PRAGMA page_size");
    const std::int64_t page_count = scalar(db, "PRAGMA page_count");
    if (page_size * page_count > file_size)
      throw ProfileError(path + " is truncated: it has " + std::to_string(file_size) + " of its " +
                         std::to_string(page_size * page_count) + " bytes");
    std::set<std::string> tables;
    {
      Stmt st(db, "SELECT name FROM sqlite_master WHERE type = 'table'");
      while (st.next()) tables.insert(st.str(0));
    }
    if (!tables.count("meta")) throw ProfileError(path + " is not an amdahl profile: it has no meta table");
    detail::check_profile_schema(db, path);
    {
      Stmt st(db, "SELECT key, value FROM meta");
      while (st.next()) out.meta[st.str(0)] = st.str(1);
    }
    const int version = check_version(path, out.meta);
    for (const auto& t : detail::kTables)
      if (t.since <= version && !tables.count(t.name))
        throw ProfileError(path + " is not a complete amdahl profile: table '" + t.name + "' is missing");
    std::atomic<std::uint64_t> rows_read{0};
    const Loader loader{path, db, file_size, version, options.analysis_columns_only, &deadline, options.on_rows,
                        rows_read};
    loader.load(out);
    loader.check_counts(out);
    detail::check_records(out.records, [&](const std::string& why) { loader.corrupt(why); });
    if (const std::size_t cut = loader.names_cut.load()) note_cut_names(out.records, cut);
  } catch (const SqliteError& e) {
    switch (e.code()) {
      case SQLITE_INTERRUPT:
        if (deadline.expired)
          throw ProfileError("reading " + path + " took longer than " + seconds_text(deadline.seconds) +
                             " s; given up (AMDAHL_LOAD_TIMEOUT_S=N allows N seconds)");
        throw ProfileError("cannot read " + path + ": " + e.what());
      case SQLITE_TOOBIG:
        throw ProfileError(path + " is not a valid amdahl profile: it holds a value or schema statement over "
                           "SQLite's bounds for reading (" + std::string(e.what()) + ")");
      case SQLITE_NOTADB: throw ProfileError(path + " is not an amdahl profile: it is not an SQLite database");
      case SQLITE_CORRUPT:
      case SQLITE_IOERR:
      case SQLITE_FORMAT:
      case SQLITE_RANGE: throw ProfileError(path + " is corrupt or truncated (SQLite: " + e.what() + ")");
      case SQLITE_ERROR:  // e.g. a column missing from a table of an amdahl-looking file
        throw ProfileError(path + " is not a valid amdahl profile (SQLite: " + e.what() + ")");
      default: throw ProfileError("cannot read " + path + ": " + e.what());
    }
  }
  return out;
}

}  // namespace amdahl::format
