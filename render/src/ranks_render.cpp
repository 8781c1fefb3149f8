// The ranks section of the report as JSON and as text (ranks.hpp).
#include "amdahl/render/renderers.hpp"
#include <cstdio>

#include "amdahl/analysis/ranks.hpp"
#include "amdahl/render/finding_text.hpp"

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
  char buf[512];
  std::snprintf(buf, sizeof buf, "  %-5s %9s  %-44s %10s %10s %10s\n", "rank", "ms/step", "driving thread (ms)",
                "comm ms", "exposed", "late ms");
  out += buf;
  for (const RankRow& r : ra.rows) {
    std::string parts;
    for (std::size_t s = 0; s < r.lane_ns.size() && s < names.size(); ++s) {
      if (r.lane_ns[s] < 0.005 * r.step_ns) continue;
      std::snprintf(buf, sizeof buf, "%s%s %.1f", parts.empty() ? "" : ", ", names[s].c_str(), r.lane_ns[s] / 1e6);
      parts += buf;
    }
    if (r.lane_wait_ns >= 0.005 * r.step_ns) {
      std::snprintf(buf, sizeof buf, "%swait %.1f", parts.empty() ? "" : ", ", r.lane_wait_ns / 1e6);
      parts += buf;
    }
    std::snprintf(buf, sizeof buf, "  %-5u %9.2f  %-44s %10.2f %10.2f %10.2f%s\n", r.rank, r.step_ns / 1e6,
                  parts.c_str(), r.comm_ns / 1e6, r.comm_exposed_ns / 1e6, r.lateness_ns / 1e6,
                  ra.straggler && &ra.rows[*ra.straggler] == &r ? "  <- straggler" : "");
    out += buf;
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
    std::snprintf(buf, sizeof buf,
                  "  straggler fixed (estimate): %.2f ms/step instead of %.2f (%.2fx): the other ranks' step less the "
                  "exposed time they waited for rank %u\n",
                  ra.fixed_step_ns / 1e6, others / 1e6, others / ra.fixed_step_ns, w.rank);
    out += buf;
  }
  if (ra.collectives > 0 && ra.comm_bytes > 0) {
    std::snprintf(buf, sizeof buf, "  collectives: %zu matched, %lld bytes each, %.2f ms (the last arrival's)\n",
                  ra.collectives, static_cast<long long>(ra.comm_bytes), ra.transfer_ns / 1e6);
    out += buf;
  }
  return out;
}

}  // namespace amdahl::render
