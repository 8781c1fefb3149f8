// Checks of a loaded profile's records (record_checks.hpp).
#include "record_checks.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>

namespace amdahl::format::detail {
namespace {

std::string years(std::int64_t lo, std::int64_t hi) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f years",
                (static_cast<double>(hi) - static_cast<double>(lo)) / (365.0 * 24 * 3600 * 1e9));
  return buf;
}

}  // namespace

void check_records(const RecordSet& rs, const std::function<void(const std::string&)>& corrupt) {
  const std::size_t n_strings = rs.strings.size();
  auto name = [&](StrId id, const char* column, std::size_t row) {
    if (id >= n_strings)
      corrupt(std::string(column) + " " + std::to_string(id) + " (row id " + std::to_string(row) +
              ") is past the string table, which has " + std::to_string(n_strings) + " strings");
  };
  for (std::size_t i = 0; i < rs.processes.size(); ++i) name(rs.processes[i].command, "processes.command_id", i);
  for (std::size_t i = 0; i < rs.threads.size(); ++i) name(rs.threads[i].name, "threads.name_id", i);
  for (std::size_t i = 0; i < rs.categories.size(); ++i) {
    name(rs.categories[i].domain, "categories.domain_id", i);
    name(rs.categories[i].name, "categories.name_id", i);
  }
  for (std::size_t i = 0; i < rs.ranges.size(); ++i) {
    name(rs.ranges[i].domain, "ranges.domain_id", i);
    name(rs.ranges[i].name, "ranges.name_id", i);
  }
  for (std::size_t i = 0; i < rs.marks.size(); ++i) {
    name(rs.marks[i].domain, "marks.domain_id", i);
    name(rs.marks[i].name, "marks.name_id", i);
  }
  for (std::size_t i = 0; i < rs.api_calls.size(); ++i) name(rs.api_calls[i].name, "api_calls.name_id", i);
  for (std::size_t i = 0; i < rs.gpu_ops.size(); ++i) name(rs.gpu_ops[i].name, "gpu_ops.name_id", i);
  for (std::size_t i = 0; i < rs.devices.size(); ++i) name(rs.devices[i].name, "devices.name_id", i);
  for (std::size_t i = 0; i < rs.diagnostics.size(); ++i) {
    name(rs.diagnostics[i].key, "diagnostics.key_id", i);
    name(rs.diagnostics[i].detail, "diagnostics.detail_id", i);
  }

  // Times: each within the clock's range; together within kMaxSpanNs. A record that ends
  // before it starts adds only its start (the analysis leaves it out and counts it).
  std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = std::numeric_limits<std::int64_t>::min();
  std::string lo_what, hi_what;
  auto time = [&](std::int64_t t, const char* column, std::size_t row) {
    if (t > kMaxAbsTimeNs || t < -kMaxAbsTimeNs)
      corrupt(std::string(column) + " " + std::to_string(t) + " (row id " + std::to_string(row) +
              ") is no clock's time (more than 146 years from the clock's origin)");
    if (t < lo) { lo = t; lo_what = std::string(column) + " of row id " + std::to_string(row); }
    if (t > hi) { hi = t; hi_what = std::string(column) + " of row id " + std::to_string(row); }
  };
  auto span = [&](std::int64_t a, std::int64_t b, const char* ca, const char* cb, std::size_t row) {
    time(a, ca, row);
    if (b >= a || b > kMaxAbsTimeNs || b < -kMaxAbsTimeNs) time(b, cb, row);  // out of range: an error
  };
  for (std::size_t i = 0; i < rs.ranges.size(); ++i)
    span(rs.ranges[i].start_ns, rs.ranges[i].end_ns, "ranges.start_ns", "ranges.end_ns", i);
  for (std::size_t i = 0; i < rs.marks.size(); ++i) time(rs.marks[i].ts_ns, "marks.ts_ns", i);
  for (std::size_t i = 0; i < rs.api_calls.size(); ++i)
    span(rs.api_calls[i].start_ns, rs.api_calls[i].end_ns, "api_calls.start_ns", "api_calls.end_ns", i);
  for (std::size_t i = 0; i < rs.gpu_ops.size(); ++i)
    span(rs.gpu_ops[i].start_ns, rs.gpu_ops[i].end_ns, "gpu_ops.start_ns", "gpu_ops.end_ns", i);
  for (std::size_t i = 0; i < rs.syncs.size(); ++i)
    span(rs.syncs[i].start_ns, rs.syncs[i].end_ns, "syncs.start_ns", "syncs.end_ns", i);
  if (lo <= hi && hi - lo > kMaxSpanNs)
    corrupt("its records span " + years(lo, hi) + " (from " + std::to_string(lo) + " ns, " + lo_what + ", to " +
            std::to_string(hi) + " ns, " + hi_what + "); no run lasts that long: a timestamp is wrong");
}

}  // namespace amdahl::format::detail
