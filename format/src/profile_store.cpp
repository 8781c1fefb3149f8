// Saving and loading the SQLite profile (.amdahl): the bulk insert of a RecordSet in one
// transaction into `path`.tmp then a rename, and the checked load that turns every kind of bad
// input (missing, not SQLite, truncated, not a profile, other format version) into one
// ProfileError sentence. The schema itself is in profile_schema.cpp.
#include "amdahl/format/profile_store.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <set>
#include <string_view>

#include "profile_schema.hpp"
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
  meta["count.devices"] = std::to_string(r.devices.size());
  meta["count.diagnostics"] = std::to_string(r.diagnostics.size());
  Stmt st(db, "INSERT INTO meta(key, value) VALUES(?1, ?2)");
  for (const auto& [k, v] : meta) {
    st.bind_text(1, k.c_str(), static_cast<int>(k.size()));
    st.bind_text(2, v.c_str(), static_cast<int>(v.size()));
    st.run();
  }
}

void write_records(const Db& db, const RecordSet& r) {
  {
    Stmt st(db, "INSERT INTO strings(id, value) VALUES(?1, ?2)");
    for (std::size_t i = 0; i < r.strings.size(); ++i) {
      st.bind(1, static_cast<std::int64_t>(i));
      st.bind_text(2, r.strings[i].c_str(), static_cast<int>(r.strings[i].size()));
      st.run();
    }
  }
  {
    Stmt st(db, "INSERT INTO processes VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)");
    std::int64_t id = 0;
    for (const ProcessRec& p : r.processes) {
      st.bind(1, id++); st.bind(2, std::int64_t{p.pid}); st.bind(3, std::int64_t{p.ppid});
      st.bind(4, std::int64_t{p.command}); st.bind(5, p.start_ns); st.bind(6, p.end_ns);
      st.bind(7, std::int64_t{p.rank});
      st.run();
    }
  }
  {
    Stmt st(db, "INSERT INTO threads VALUES(?1, ?2, ?3, ?4)");
    std::int64_t id = 0;
    for (const ThreadRec& t : r.threads) {
      st.bind(1, id++); st.bind(2, std::int64_t{t.pid}); st.bind(3, s64(t.tid)); st.bind(4, std::int64_t{t.name});
      st.run();
    }
  }
  {
    Stmt st(db, "INSERT INTO categories VALUES(?1, ?2, ?3, ?4, ?5)");
    std::int64_t id = 0;
    for (const CategoryRec& c : r.categories) {
      st.bind(1, id++); st.bind(2, std::int64_t{c.pid}); st.bind(3, std::int64_t{c.domain});
      st.bind(4, std::int64_t{c.category}); st.bind(5, std::int64_t{c.name});
      st.run();
    }
  }
  {
    Stmt st(db, "INSERT INTO ranges VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)");
    std::int64_t id = 0;
    for (const RangeRec& x : r.ranges) {
      st.bind(1, id++); st.bind(2, std::int64_t{x.pid}); st.bind(3, s64(x.tid)); st.bind(4, s64(x.end_tid));
      st.bind(5, std::int64_t{x.domain}); st.bind(6, std::int64_t{x.name}); st.bind(7, std::int64_t{x.category});
      st.bind_text(8, enum_name(x.kind)); st.bind(9, std::int64_t{x.depth});
      if (x.parent >= 0) st.bind(10, x.parent);
      else st.bind_null(10);
      st.bind(11, x.start_ns); st.bind(12, x.end_ns); st.bind(13, std::int64_t{x.unclosed ? 1 : 0});
      bind_payload(st, 14, x.payload);
      st.run();
    }
  }
  {
    Stmt st(db, "INSERT INTO marks VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
    std::int64_t id = 0;
    for (const MarkRec& m : r.marks) {
      st.bind(1, id++); st.bind(2, std::int64_t{m.pid}); st.bind(3, s64(m.tid)); st.bind(4, std::int64_t{m.domain});
      st.bind(5, std::int64_t{m.name}); st.bind(6, std::int64_t{m.category}); st.bind(7, m.ts_ns);
      bind_payload(st, 8, m.payload);
      st.run();
    }
  }
  {
    Stmt st(db, "INSERT INTO api_calls VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
    std::int64_t id = 0;
    for (const ApiCallRec& a : r.api_calls) {
      st.bind(1, id++); st.bind(2, std::int64_t{a.pid}); st.bind(3, s64(a.tid)); st.bind_text(4, enum_name(a.api));
      st.bind(5, std::int64_t{a.cbid}); st.bind(6, std::int64_t{a.name}); st.bind(7, a.start_ns); st.bind(8, a.end_ns);
      st.bind(9, std::int64_t{a.correlation_id});
      st.run();
    }
  }
  {
    Stmt st(db, "INSERT INTO gpu_ops VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)");
    std::int64_t id = 0;
    for (const GpuOpRec& g : r.gpu_ops) {
      st.bind(1, id++); st.bind(2, std::int64_t{g.pid}); st.bind(3, std::int64_t{g.device});
      st.bind(4, std::int64_t{g.context}); st.bind(5, std::int64_t{g.stream}); st.bind_text(6, enum_name(g.kind));
      st.bind(7, std::int64_t{g.name}); st.bind(8, g.start_ns); st.bind(9, g.end_ns);
      st.bind(10, std::int64_t{g.correlation_id}); st.bind(11, s64(g.bytes)); st.bind_text(12, enum_name(g.copy_kind));
      st.bind_text(13, enum_name(g.src_kind)); st.bind_text(14, enum_name(g.dst_kind)); st.bind(15, std::int64_t{g.graph_id});
      st.run();
    }
  }
  {
    Stmt st(db, "INSERT INTO syncs VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
    std::int64_t id = 0;
    for (const SyncRec& s : r.syncs) {
      st.bind(1, id++); st.bind(2, std::int64_t{s.pid}); st.bind(3, std::int64_t{s.context});
      st.bind(4, std::int64_t{s.stream}); st.bind(5, std::int64_t{s.event}); st.bind_text(6, enum_name(s.kind));
      st.bind(7, s.start_ns); st.bind(8, s.end_ns); st.bind(9, std::int64_t{s.correlation_id});
      st.run();
    }
  }
  {
    Stmt st(db, "INSERT INTO devices VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
    std::int64_t id = 0;
    for (const DeviceRec& d : r.devices) {
      st.bind(1, id++); st.bind(2, std::int64_t{d.pid}); st.bind(3, std::int64_t{d.device}); st.bind(4, std::int64_t{d.name});
      st.bind(5, s64(d.global_memory)); st.bind(6, std::int64_t{d.cc_major}); st.bind(7, std::int64_t{d.cc_minor});
      st.bind(8, std::int64_t{d.sm_count});
      st.run();
    }
  }
  {
    Stmt st(db, "INSERT INTO diagnostics VALUES(?1, ?2, ?3, ?4, ?5)");
    std::int64_t id = 0;
    for (const DiagRec& d : r.diagnostics) {
      st.bind(1, id++); st.bind(2, std::int64_t{d.pid}); st.bind(3, std::int64_t{d.key}); st.bind(4, s64(d.count));
      st.bind(5, std::int64_t{d.detail});
      st.run();
    }
  }
}

// Moves the finished temporary file into place. Without `overwrite`, link() makes the refusal
// atomic (it fails with EEXIST if `path` appeared meanwhile).
void publish(const std::string& tmp, const std::string& path, bool overwrite) {
  if (!overwrite) {
    if (::link(tmp.c_str(), path.c_str()) == 0) {
      ::unlink(tmp.c_str());
      return;
    }
    if (errno == EEXIST) throw ProfileError("refusing to overwrite " + path + ": the file already exists");
    // File systems without hard links: fall back to rename after the existence check above.
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    throw ProfileError("cannot write profile " + path + ": " + std::strerror(errno));
}

// ---- loading ----------------------------------------------------------------------------

struct Loader {
  const std::string& path;
  const Db& db;

  [[noreturn]] void corrupt(const std::string& why) const {
    throw ProfileError(path + " is corrupt: " + why);
  }

  template <class E> E enum_col(const Stmt& st, int c, const char* column) const {
    E v{};
    const char* t = st.text(c);
    if (!detail::enum_from_name(t, v)) corrupt(std::string("unknown value '") + t + "' in " + column);
    return v;
  }

  Payload payload(const Stmt& st, int first, const char* table) const {
    Payload p;
    p.kind = enum_col<PayloadKind>(st, first, table);
    p.i = st.i64(first + 1);  // NULL reads as 0
    p.d = st.f64(first + 2);
    return p;
  }

  // Runs `SELECT id, <cols> FROM table ORDER BY id`; calls row(st) for each row with the
  // record's columns starting at index 1; checks ids are 0..n-1 without gaps.
  template <class Row> void each(const char* table, const char* cols, Row&& row) const {
    const std::string sql = std::string("SELECT id, ") + cols + " FROM " + table + " ORDER BY id";
    Stmt st(db, sql.c_str());
    std::int64_t expect = 0;
    while (st.next()) {
      if (st.i64(0) != expect) corrupt(std::string("table ") + table + " has a gap at id " + std::to_string(expect));
      ++expect;
      row(st);
    }
  }

  // Row count the writer recorded for `table` (a reservation hint only; 0 when absent).
  static std::size_t hint(const Profile& p, const char* table) {
    const auto it = p.meta.find(std::string("count.") + table);
    if (it == p.meta.end()) return 0;
    std::size_t n = 0;
    std::from_chars(it->second.data(), it->second.data() + it->second.size(), n);
    return std::min<std::size_t>(n, std::size_t{1} << 28);
  }

  void load(Profile& out) const {
    RecordSet& r = out.records;
    r.strings.clear();
    r.strings.reserve(hint(out, "strings"));
    r.processes.reserve(hint(out, "processes"));
    r.threads.reserve(hint(out, "threads"));
    r.categories.reserve(hint(out, "categories"));
    r.ranges.reserve(hint(out, "ranges"));
    r.marks.reserve(hint(out, "marks"));
    r.api_calls.reserve(hint(out, "api_calls"));
    r.gpu_ops.reserve(hint(out, "gpu_ops"));
    r.syncs.reserve(hint(out, "syncs"));
    r.devices.reserve(hint(out, "devices"));
    r.diagnostics.reserve(hint(out, "diagnostics"));
    each("strings", "value", [&](const Stmt& st) { r.strings.push_back(st.str(1)); });
    if (r.strings.empty() || !r.strings[0].empty()) corrupt("string 0 must be the empty string");
    auto u32 = [](const Stmt& st, int c) { return static_cast<std::uint32_t>(st.i64(c)); };
    auto u64 = [](const Stmt& st, int c) { return static_cast<std::uint64_t>(st.i64(c)); };
    each("processes", "pid, ppid, command_id, start_ns, end_ns, rank", [&](const Stmt& st) {
      r.processes.push_back({u32(st, 1), u32(st, 2), u32(st, 3), st.i64(4), st.i64(5), u32(st, 6)});
    });
    each("threads", "pid, tid, name_id", [&](const Stmt& st) {
      r.threads.push_back({u32(st, 1), u64(st, 2), u32(st, 3)});
    });
    each("categories", "pid, domain_id, category, name_id", [&](const Stmt& st) {
      r.categories.push_back({u32(st, 1), u32(st, 2), u32(st, 3), u32(st, 4)});
    });
    each("ranges",
         "pid, tid, end_tid, domain_id, name_id, category, kind, depth, parent, start_ns, end_ns, unclosed, "
         "payload_kind, payload_int, payload_double",
         [&](const Stmt& st) {
           RangeRec x;
           x.pid = u32(st, 1); x.tid = u64(st, 2); x.end_tid = u64(st, 3); x.domain = u32(st, 4);
           x.name = u32(st, 5); x.category = u32(st, 6); x.kind = enum_col<RangeKind>(st, 7, "ranges.kind");
           x.depth = static_cast<std::int32_t>(st.i64(8)); x.parent = st.is_null(9) ? -1 : st.i64(9);
           x.start_ns = st.i64(10); x.end_ns = st.i64(11); x.unclosed = st.i64(12) != 0;
           x.payload = payload(st, 13, "ranges.payload_kind");
           r.ranges.push_back(x);
         });
    const auto n_ranges = static_cast<std::int64_t>(r.ranges.size());
    for (const RangeRec& x : r.ranges)
      if (x.parent >= n_ranges) corrupt("a range's parent " + std::to_string(x.parent) + " does not exist");
    each("marks", "pid, tid, domain_id, name_id, category, ts_ns, payload_kind, payload_int, payload_double",
         [&](const Stmt& st) {
           r.marks.push_back({u32(st, 1), u64(st, 2), u32(st, 3), u32(st, 4), u32(st, 5), st.i64(6),
                              payload(st, 7, "marks.payload_kind")});
         });
    each("api_calls", "pid, tid, api, cbid, name_id, start_ns, end_ns, correlation_id", [&](const Stmt& st) {
      r.api_calls.push_back({u32(st, 1), u64(st, 2), enum_col<ApiKind>(st, 3, "api_calls.api"), u32(st, 4),
                             u32(st, 5), st.i64(6), st.i64(7), u32(st, 8)});
    });
    each("gpu_ops",
         "pid, device, context, stream, kind, name_id, start_ns, end_ns, correlation_id, bytes, copy_kind, "
         "src_kind, dst_kind, graph_id",
         [&](const Stmt& st) {
           GpuOpRec g;
           g.pid = u32(st, 1); g.device = u32(st, 2); g.context = u32(st, 3); g.stream = u32(st, 4);
           g.kind = enum_col<GpuOpKind>(st, 5, "gpu_ops.kind"); g.name = u32(st, 6); g.start_ns = st.i64(7);
           g.end_ns = st.i64(8); g.correlation_id = u32(st, 9); g.bytes = u64(st, 10);
           g.copy_kind = enum_col<CopyKind>(st, 11, "gpu_ops.copy_kind");
           g.src_kind = enum_col<MemKind>(st, 12, "gpu_ops.src_kind");
           g.dst_kind = enum_col<MemKind>(st, 13, "gpu_ops.dst_kind"); g.graph_id = u32(st, 14);
           r.gpu_ops.push_back(g);
         });
    each("syncs", "pid, context, stream, event, kind, start_ns, end_ns, correlation_id", [&](const Stmt& st) {
      r.syncs.push_back({u32(st, 1), u32(st, 2), u32(st, 3), u32(st, 4), enum_col<SyncKind>(st, 5, "syncs.kind"),
                         st.i64(6), st.i64(7), u32(st, 8)});
    });
    each("devices", "pid, device, name_id, global_memory, cc_major, cc_minor, sm_count", [&](const Stmt& st) {
      r.devices.push_back({u32(st, 1), u32(st, 2), u32(st, 3), u64(st, 4), u32(st, 5), u32(st, 6), u32(st, 7)});
    });
    each("diagnostics", "pid, key_id, count, detail_id", [&](const Stmt& st) {
      r.diagnostics.push_back({u32(st, 1), u32(st, 2), u64(st, 3), u32(st, 4)});
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
    for (const auto& [table, n] : counts) {
      const auto it = p.meta.find(std::string("count.") + table);
      if (it == p.meta.end()) continue;
      if (it->second != std::to_string(n))
        corrupt(std::string("table ") + table + " has " + std::to_string(n) + " rows where " + it->second +
                " were written");
    }
  }
};

// Opens the file ourselves first so that a missing or unreadable file gets the OS's reason
// (SQLite would only say "unable to open database file").
std::int64_t check_readable(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    if (e == ENOENT) throw ProfileError("cannot open " + path + ": no such file");
    if (e == EACCES) throw ProfileError("cannot open " + path + ": permission denied");
    throw ProfileError("cannot open " + path + ": " + std::strerror(e));
  }
  struct stat sb {};
  const int rc = ::fstat(fd, &sb);
  ::close(fd);
  if (rc != 0) throw ProfileError("cannot open " + path + ": " + std::strerror(errno));
  if (S_ISDIR(sb.st_mode)) throw ProfileError("cannot open " + path + ": it is a directory");
  if (sb.st_size == 0) throw ProfileError(path + " is not an amdahl profile: the file is empty");
  return static_cast<std::int64_t>(sb.st_size);
}

std::int64_t scalar(const Db& db, const char* sql) {
  Stmt st(db, sql);
  return st.next() ? st.i64(0) : 0;
}

void check_version(const std::string& path, const std::map<std::string, std::string>& meta) {
  const auto it = meta.find("format_version");
  if (it == meta.end()) throw ProfileError(path + " is not an amdahl profile: its meta table has no format_version");
  const std::string& v = it->second;
  long long version = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), version);
  const std::string reads = "; this one reads format " + std::to_string(kProfileFormatVersion);
  if (ec != std::errc{} || end != v.data() + v.size())
    throw ProfileError(path + " has an unknown profile format version '" + v + "'" + reads);
  if (version > kProfileFormatVersion)
    throw ProfileError(path + " was written by a newer amdahl (format " + v + ")" + reads);
  if (version < kProfileFormatVersion)
    throw ProfileError(path + " has profile format " + v + ", which this amdahl no longer reads" + reads);
}

}  // namespace

void save_profile(const Profile& profile, const std::string& path, bool overwrite) {
  if (path.empty()) throw ProfileError("cannot write a profile to an empty file name");
  struct stat sb {};
  if (!overwrite && ::stat(path.c_str(), &sb) == 0)
    throw ProfileError("refusing to overwrite " + path + ": the file already exists");
  const std::string tmp = path + ".tmp";
  ::unlink(tmp.c_str());
  try {
    {
      Db db(tmp, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX);
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
    publish(tmp, path, overwrite);
  } catch (const SqliteError& e) {
    ::unlink(tmp.c_str());
    throw ProfileError("cannot write profile " + path + ": " + e.what());
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
}

Profile load_profile(const std::string& path) {
  const std::int64_t file_size = check_readable(path);
  Profile out;
  try {
    Db db(path, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX);
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
    {
      Stmt st(db, "SELECT key, value FROM meta");
      while (st.next()) out.meta[st.str(0)] = st.str(1);
    }
    check_version(path, out.meta);
    for (const char* t : detail::kTables)
      if (!tables.count(t)) throw ProfileError(path + " is not a complete amdahl profile: table '" + t + "' is missing");
    const Loader loader{path, db};
    loader.load(out);
    loader.check_counts(out);
  } catch (const SqliteError& e) {
    switch (e.code()) {
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
