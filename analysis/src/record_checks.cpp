// Counting the records the analysis leaves out because they end before they start
// (record_checks.hpp).
#include "amdahl/analysis/record_checks.hpp"

#include <string>

#include "amdahl/text/escape.hpp"

namespace amdahl::analysis {
namespace {

constexpr std::size_t kNamed = 3;  // records named in a diagnostic's detail

struct Tally {
  std::uint64_t count = 0;
  std::uint32_t pid = 0;  // the first one's
  std::string named;

  void add(std::uint32_t p, const std::string& name, std::int64_t start, std::int64_t end) {
    if (count++ == 0) pid = p;
    if (count > kNamed) return;
    named += (named.empty() ? "" : ", ") + std::string("'") + text::display_name(name) + "' (pid " + std::to_string(p) +
             ", start " + std::to_string(start) + " ns, end " + std::to_string(end) + " ns)";
  }
  void emit(std::vector<ProfileDiagnostic>& out, const char* key, const char* what) const {
    if (count == 0) return;
    out.push_back({pid, key, count,
                   std::to_string(count) + " " + what + " end before they start and were left out of the analysis: " +
                       named + (count > kNamed ? ", ..." : "")});
  }
};

}  // namespace

std::vector<ProfileDiagnostic> impossible_record_diagnostics(const format::RecordSet& rs) {
  Tally ranges, ops, calls;
  for (const auto& r : rs.ranges)
    if (r.end_ns < r.start_ns) ranges.add(r.pid, rs.str(r.name), r.start_ns, r.end_ns);
  for (const auto& g : rs.gpu_ops)
    if (g.end_ns < g.start_ns) ops.add(g.pid, rs.str(g.name), g.start_ns, g.end_ns);
  for (const auto& a : rs.api_calls)
    if (a.end_ns < a.start_ns) calls.add(a.pid, rs.str(a.name), a.start_ns, a.end_ns);
  std::vector<ProfileDiagnostic> out;
  ranges.emit(out, "analysis.range_ends_before_start", "range(s)");
  ops.emit(out, "analysis.gpu_op_ends_before_start", "GPU operation(s)");
  calls.emit(out, "analysis.api_call_ends_before_start", "CUDA API call(s)");
  return out;
}

}  // namespace amdahl::analysis
