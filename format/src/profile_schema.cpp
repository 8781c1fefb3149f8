// The SQL of the .amdahl profile, format_version 3: tables (one per RecordSet vector), the
// indexes the analyzer and shell users need, the *_named views, and the enum TEXT names.
#include "profile_schema.hpp"

#include <array>

namespace amdahl::format::detail {

// String fields are stored as ids (`*_id`) into `strings`; the *_named views join them.
// `id` is the 0-based index of the record in its RecordSet vector (ranges.parent refers to it).
const char* const kSchemaSql = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE strings(id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE processes(id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, ppid INTEGER NOT NULL,
  command_id INTEGER NOT NULL, start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,
  rank INTEGER NOT NULL, cpus_online INTEGER NOT NULL, cpus_allowed INTEGER NOT NULL,
  omp_threads INTEGER NOT NULL);
CREATE TABLE threads(id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, tid INTEGER NOT NULL,
  name_id INTEGER NOT NULL);
CREATE TABLE categories(id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, domain_id INTEGER NOT NULL,
  category INTEGER NOT NULL, name_id INTEGER NOT NULL);
CREATE TABLE ranges(id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, tid INTEGER NOT NULL,
  end_tid INTEGER NOT NULL, domain_id INTEGER NOT NULL, name_id INTEGER NOT NULL,
  category INTEGER NOT NULL, kind TEXT NOT NULL, depth INTEGER NOT NULL, parent INTEGER,
  start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL, unclosed INTEGER NOT NULL,
  payload_kind TEXT NOT NULL, payload_int INTEGER, payload_double REAL, thread_cpu_ns INTEGER,
  process_cpu_ns INTEGER);
CREATE TABLE marks(id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, tid INTEGER NOT NULL,
  domain_id INTEGER NOT NULL, name_id INTEGER NOT NULL, category INTEGER NOT NULL,
  ts_ns INTEGER NOT NULL, payload_kind TEXT NOT NULL, payload_int INTEGER, payload_double REAL);
CREATE TABLE api_calls(id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, tid INTEGER NOT NULL,
  api TEXT NOT NULL, cbid INTEGER NOT NULL, name_id INTEGER NOT NULL, start_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL, correlation_id INTEGER NOT NULL);
CREATE TABLE gpu_ops(id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, device INTEGER NOT NULL,
  context INTEGER NOT NULL, stream INTEGER NOT NULL, kind TEXT NOT NULL, name_id INTEGER NOT NULL,
  start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL, correlation_id INTEGER NOT NULL,
  bytes INTEGER NOT NULL, copy_kind TEXT NOT NULL, src_kind TEXT NOT NULL, dst_kind TEXT NOT NULL,
  graph_id INTEGER NOT NULL);
CREATE TABLE syncs(id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, context INTEGER NOT NULL,
  stream INTEGER NOT NULL, event INTEGER NOT NULL, kind TEXT NOT NULL, start_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL, correlation_id INTEGER NOT NULL);
CREATE TABLE event_records(id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, device INTEGER NOT NULL,
  context INTEGER NOT NULL, stream INTEGER NOT NULL, event INTEGER NOT NULL,
  correlation_id INTEGER NOT NULL, device_ts_ns INTEGER NOT NULL);
CREATE TABLE devices(id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, device INTEGER NOT NULL,
  name_id INTEGER NOT NULL, global_memory INTEGER NOT NULL, cc_major INTEGER NOT NULL,
  cc_minor INTEGER NOT NULL, sm_count INTEGER NOT NULL);
CREATE TABLE diagnostics(id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, key_id INTEGER NOT NULL,
  count INTEGER NOT NULL, detail_id INTEGER NOT NULL);
)sql";

// Only what load and the shell's common questions need: rows are read whole, in id order, through
// the INTEGER PRIMARY KEY (no index is needed for that). Secondary indexes on the big tables
// (ranges, gpu_ops, api_calls) would cost seconds per ten million rows on every save for queries
// nobody runs by default; docs/profile-format.md shows how to add one in the shell.
const char* const kIndexSql = R"sql(
CREATE INDEX marks_by_name ON marks(name_id, payload_int);
CREATE INDEX diagnostics_by_key ON diagnostics(key_id);
)sql";

const char* const kViewsSql = R"sql(
CREATE VIEW ranges_named AS
  SELECT r.id, r.pid, r.tid, d.value AS domain, n.value AS name, r.kind, r.depth, r.parent,
         r.start_ns, r.end_ns, r.end_ns - r.start_ns AS dur_ns, r.unclosed, r.category,
         r.payload_kind, r.payload_int, r.payload_double, r.end_tid, r.thread_cpu_ns,
         r.process_cpu_ns
  FROM ranges r JOIN strings d ON d.id = r.domain_id JOIN strings n ON n.id = r.name_id;
CREATE VIEW range_totals AS
  SELECT domain, name, count(*) AS count, sum(dur_ns) AS total_ns,
         CAST(avg(dur_ns) AS INTEGER) AS mean_ns, min(dur_ns) AS min_ns, max(dur_ns) AS max_ns
  FROM ranges_named GROUP BY domain, name ORDER BY total_ns DESC;
CREATE VIEW marks_named AS
  SELECT m.id, m.pid, m.tid, d.value AS domain, n.value AS name, m.ts_ns, m.category,
         m.payload_kind, m.payload_int, m.payload_double
  FROM marks m JOIN strings d ON d.id = m.domain_id JOIN strings n ON n.id = m.name_id;
CREATE VIEW threads_named AS
  SELECT t.id, t.pid, t.tid, n.value AS name FROM threads t JOIN strings n ON n.id = t.name_id;
CREATE VIEW processes_named AS
  SELECT p.id, p.pid, p.ppid, c.value AS command, p.start_ns, p.end_ns,
         p.end_ns - p.start_ns AS dur_ns, p.rank, p.cpus_online, p.cpus_allowed, p.omp_threads
  FROM processes p JOIN strings c ON c.id = p.command_id;
CREATE VIEW categories_named AS
  SELECT c.id, c.pid, d.value AS domain, c.category, n.value AS name
  FROM categories c JOIN strings d ON d.id = c.domain_id JOIN strings n ON n.id = c.name_id;
CREATE VIEW api_calls_named AS
  SELECT a.id, a.pid, a.tid, a.api, a.cbid, n.value AS name, a.start_ns, a.end_ns,
         a.end_ns - a.start_ns AS dur_ns, a.correlation_id
  FROM api_calls a JOIN strings n ON n.id = a.name_id;
CREATE VIEW gpu_ops_named AS
  SELECT g.id, g.pid, g.device, g.context, g.stream, g.kind, n.value AS name, g.start_ns,
         g.end_ns, g.end_ns - g.start_ns AS dur_ns, g.correlation_id, g.bytes, g.copy_kind,
         g.src_kind, g.dst_kind, g.graph_id
  FROM gpu_ops g JOIN strings n ON n.id = g.name_id;
CREATE VIEW devices_named AS
  SELECT v.id, v.pid, v.device, n.value AS name, v.global_memory, v.cc_major, v.cc_minor,
         v.sm_count
  FROM devices v JOIN strings n ON n.id = v.name_id;
CREATE VIEW diagnostics_named AS
  SELECT g.id, g.pid, k.value AS key, g.count, d.value AS detail
  FROM diagnostics g JOIN strings k ON k.id = g.key_id JOIN strings d ON d.id = g.detail_id;
)sql";

namespace {

constexpr std::array kPayloadNames{"none", "int64", "uint64", "double"};
constexpr std::array kRangeNames{"push_pop", "start_end"};
constexpr std::array kApiNames{"runtime", "driver"};
constexpr std::array kGpuOpNames{"kernel", "memcpy", "memset"};
constexpr std::array kCopyNames{"unknown", "HtoD", "DtoH", "DtoD", "HtoH", "PtoP"};
constexpr std::array kMemNames{"unknown", "pageable", "pinned", "device", "managed"};
constexpr std::array kSyncNames{"unknown", "event_synchronize", "stream_wait_event",
                                "stream_synchronize", "context_synchronize"};

template <class E, std::size_t N> const char* name_of(const std::array<const char*, N>& names, E v) noexcept {
  const auto i = static_cast<std::size_t>(v);
  return i < N ? names[i] : "unknown";
}

template <class E, std::size_t N>
bool parse(const std::array<const char*, N>& names, std::string_view s, E& out) noexcept {
  for (std::size_t i = 0; i < N; ++i) {
    if (s == names[i]) {
      out = static_cast<E>(i);
      return true;
    }
  }
  return false;
}

}  // namespace

const char* enum_name(PayloadKind v) noexcept { return name_of(kPayloadNames, v); }
const char* enum_name(RangeKind v) noexcept { return name_of(kRangeNames, v); }
const char* enum_name(ApiKind v) noexcept { return name_of(kApiNames, v); }
const char* enum_name(GpuOpKind v) noexcept { return name_of(kGpuOpNames, v); }
const char* enum_name(CopyKind v) noexcept { return name_of(kCopyNames, v); }
const char* enum_name(MemKind v) noexcept { return name_of(kMemNames, v); }
const char* enum_name(SyncKind v) noexcept { return name_of(kSyncNames, v); }

bool enum_from_name(std::string_view s, PayloadKind& out) noexcept { return parse(kPayloadNames, s, out); }
bool enum_from_name(std::string_view s, RangeKind& out) noexcept { return parse(kRangeNames, s, out); }
bool enum_from_name(std::string_view s, ApiKind& out) noexcept { return parse(kApiNames, s, out); }
bool enum_from_name(std::string_view s, GpuOpKind& out) noexcept { return parse(kGpuOpNames, s, out); }
bool enum_from_name(std::string_view s, CopyKind& out) noexcept { return parse(kCopyNames, s, out); }
bool enum_from_name(std::string_view s, MemKind& out) noexcept { return parse(kMemNames, s, out); }
bool enum_from_name(std::string_view s, SyncKind& out) noexcept { return parse(kSyncNames, s, out); }

}  // namespace amdahl::format::detail
