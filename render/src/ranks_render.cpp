// The ranks section of the report as JSON and as text (ranks.hpp).
#include "amdahl/render/renderers.hpp"

#include <string>

#include "amdahl/analysis/ranks.hpp"
#include "amdahl/render/finding_text.hpp"
#include "numbers.hpp"

namespace amdahl::render {
using namespace analysis;
namespace {

nlohmann::json per_stage(const std::vector<double>& v, const std::vector<std::string>& names) {
  nlohmann::json j = nlohmann::json::object();
  for (std::size_t s = 0; s < v.size() && s < names.size(); ++s) {
    if (v[s] > 0) j[names[s]] = v[s];
  }
  return j;
}

}  // namespace

nlohmann::json ranks_to_json(const RankAnalysis& ra, const std::vector<std::string>& names) {
  nlohmann::json j;
  j["world"] = ra.world;
  j["collectives"] = ra.collectives;
  j["comm_bytes"] = ra.comm_bytes;
  j["collective_ns"] = ra.transfer_ns;
  j["line"] = to_text(ra.line);
  nlohmann::json rows = nlohmann::json::array();
  for (const RankRow& r : ra.rows) {
    nlohmann::json row;
    row["rank"] = r.rank;
    row["pid"] = r.pid;
    row["steps"] = r.steps;
    row["step_ns"] = r.step_ns;
    row["lane_ns"] = per_stage(r.lane_ns, names);
    row["lane_ns"]["wait"] = r.lane_wait_ns;
    row["lane_ns"]["other"] = r.lane_other_ns;
    row["work_ns"] = per_stage(r.work_ns, names);
    row["communication"] = {{"total_ns", r.comm_ns},
                            {"exposed_ns", r.comm_exposed_ns},
                            {"hidden_ns", r.comm_hidden_ns},
                            {"collective_ns", r.collective_ns},
                            {"bytes", r.comm_bytes}};
    row["arrival"] = {{"lateness_ns", r.lateness_ns},
                      {"waited_for_last_ns", r.waited_for_last_ns},
                      {"times_last", r.times_last}};
    rows.push_back(row);
  }
  j["ranks"] = rows;
  if (ra.straggler) {
    const RankRow& w = ra.rows[*ra.straggler];
    j["straggler"] = {{"rank", w.rank},
                      {"pid", w.pid},
                      {"times_last", w.times_last},
                      {"lateness_ns", ra.straggler_lateness_ns},
                      {"late_stage", ra.late_stage.empty() ? nlohmann::json() : nlohmann::json(ra.late_stage)},
                      {"late_stage_ns", ra.late_stage_ns},
                      {"late_stage_others_ns", ra.late_stage_others_ns},
                      {"fixed_step_ns", ra.fixed_step_ns}};
  } else {
    j["straggler"] = nullptr;
  }
  return j;
}

std::string ranks_to_text(const RankAnalysis& ra, const std::vector<std::string>& names) {
  if (ra.rows.empty()) return "";
  std::string out = "\nranks (" + std::to_string(ra.world) + "), per step of each rank's driving thread:\n";
  using detail::fixed;
  using detail::left;
  using detail::right;
  out += "  " + left("rank", 5) + " " + right("ms/step", 9) + "  " + left("driving thread (ms)", 44) + " " +
         right("comm ms", 10) + " " + right("exposed", 10) + " " + right("late ms", 10) + "\n";
  for (const RankRow& r : ra.rows) {
    std::string parts;
    for (std::size_t s = 0; s < r.lane_ns.size() && s < names.size(); ++s) {
      if (r.lane_ns[s] < 0.005 * r.step_ns) continue;
      parts += (parts.empty() ? "" : ", ") + names[s] + " " + fixed(r.lane_ns[s] / 1e6, 1);
    }
    if (r.lane_wait_ns >= 0.005 * r.step_ns) parts += (parts.empty() ? "" : ", ") + std::string("wait ") + fixed(r.lane_wait_ns / 1e6, 1);
    out += "  " + left(std::to_string(r.rank), 5) + " " + right(fixed(r.step_ns / 1e6, 2), 9) + "  " + left(parts, 44) +
           " " + right(fixed(r.comm_ns / 1e6, 2), 10) + " " + right(fixed(r.comm_exposed_ns / 1e6, 2), 10) + " " +
           right(fixed(r.lateness_ns / 1e6, 2), 10) +
           (ra.straggler && &ra.rows[*ra.straggler] == &r ? "  <- straggler" : "") + "\n";
  }
  if (ra.line) out += "  " + to_text(ra.line) + "\n";
  if (ra.straggler && ra.fixed_step_ns > 0) {
    const RankRow& w = ra.rows[*ra.straggler];
    double others = 0;
    std::size_t n = 0;
    for (const RankRow& r : ra.rows) {
      if (&r != &w) { others += r.step_ns; ++n; }
    }
    others /= static_cast<double>(n);
    out += "  straggler fixed (estimate): " + fixed(ra.fixed_step_ns / 1e6, 2) + " ms/step instead of " +
           fixed(others / 1e6, 2) + " (" + fixed(others / ra.fixed_step_ns, 2) +
           "x): the other ranks' step less the exposed time they waited for rank " + std::to_string(w.rank) + "\n";
  }
  if (ra.collectives > 0 && ra.comm_bytes > 0) {
    out += "  collectives: " + std::to_string(ra.collectives) + " matched, " +
           std::to_string(static_cast<long long>(ra.comm_bytes)) + " bytes each, " + fixed(ra.transfer_ns / 1e6, 2) +
           " ms (the last arrival's)\n";
  }
  return out;
}

}  // namespace amdahl::render
