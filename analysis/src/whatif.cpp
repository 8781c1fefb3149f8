// What-if: request parsing, classic projection with bootstrap interval, target factors, and
// their JSON / text renderings.
#include "amdahl/analysis/whatif.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "amdahl/analysis/amdahl_law.hpp"
#include "amdahl/analysis/errors.hpp"

namespace amdahl::analysis {
namespace {

std::string trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

nlohmann::json num(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

std::string times(double v) {
  if (!std::isfinite(v)) return "inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3gx", v);
  return buf;
}

}  // namespace

double parse_factor(std::string_view text) {
  std::string s = trimmed(text);
  const std::string original = s;
  if (!s.empty() && (s.back() == 'x' || s.back() == 'X')) s.pop_back();
  if (s.empty()) throw UsageError("bad factor '" + original + "': expected a number like 2, 2x or 0.5");
  for (char c : s)
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+'))
      throw UsageError("bad factor '" + original + "': expected a number like 2, 2x or 0.5");
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) throw UsageError("bad factor '" + original + "': expected a number like 2, 2x or 0.5");
  if (!std::isfinite(v) || v <= 0) throw UsageError("bad factor '" + original + "': it must be a positive number");
  return v;
}

SpeedupRequest parse_speedup(std::string_view text) {
  const std::size_t eq = text.find('=');
  if (eq == std::string_view::npos)
    throw UsageError("bad --speedup '" + std::string(text) + "': expected STAGE=FACTOR, e.g. cpu_preprocess=2");
  SpeedupRequest r{trimmed(text.substr(0, eq)), 0};
  if (r.stage.empty()) throw UsageError("bad --speedup '" + std::string(text) + "': no stage before '='");
  r.factor = parse_factor(text.substr(eq + 1));
  return r;
}

WhatIf compute_whatif(const Report& report, const std::vector<SpeedupRequest>& requests,
                      std::optional<double> target, const BootstrapOptions& options) {
  WhatIf w;
  w.requests = requests;
  w.target = target;
  const auto names = report.stage_names();
  std::set<std::string> seen;
  std::vector<std::pair<std::size_t, double>> factors;  // stage index -> factor
  for (const auto& req : requests) {
    std::size_t idx = names.size();
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == req.stage) idx = i;
    if (idx == names.size()) {
      std::string known;
      for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
      throw InputError("unknown stage '" + req.stage + "' in --speedup; known stages: " + known);
    }
    if (!seen.insert(req.stage).second) throw UsageError("stage '" + req.stage + "' is given twice in --speedup");
    factors.emplace_back(idx, req.factor);
  }
  auto project = [&](const std::vector<double>& fractions) {
    std::vector<StageSpeedup> v;
    for (const auto& [idx, f] : factors) v.push_back({std::clamp(fractions[idx], 0.0, 1.0), f});
    return amdahl_speedup(v);
  };
  std::vector<double> fractions;
  for (const auto& s : report.stages) fractions.push_back(s.fraction);
  w.naive_speedup = project(fractions);
  w.projected_wall_ns = static_cast<double>(report.wall_ns) / w.naive_speedup;
  if (report.steps > 0) {
    w.naive_interval = bootstrap_interval(report.exposure.span_exposed, report.exposure.span_ns, project, options);
  } else {
    w.naive_interval = {w.naive_speedup, w.naive_speedup};
    w.notes.push_back("no steps: the interval is the point value (no steps to resample)");
  }
  w.simulated_speedup = w.naive_speedup;
  w.simulated_interval = w.naive_interval;
  w.simulation_implemented = false;
  w.notes.push_back("the overlap-aware replay is not implemented yet: simulated_speedup repeats the classic "
                    "Amdahl figure");
  if (report.exposure.bounds)
    w.notes.push_back("some waits had no produce/consume link, so the exposed fractions behind these projections "
                      "are bounds, not estimates");
  if (target) {
    if (!(*target > 0) || !std::isfinite(*target)) throw UsageError("--target must be a positive number");
    for (const auto& s : report.stages) {
      if (s.is_other) continue;
      const double p = std::clamp(s.fraction, 0.0, 1.0);
      w.target_rows.push_back({s.name, s.fraction, factor_for_target(p, *target), amdahl_limit(p)});
    }
  }
  return w;
}

nlohmann::json whatif_to_json(const Report& report, const WhatIf& w) {
  nlohmann::json j = report_to_json(report);
  nlohmann::json reqs = nlohmann::json::array();
  for (const auto& r : w.requests) reqs.push_back({{"stage", r.stage}, {"factor", r.factor}});
  j["speedups"] = std::move(reqs);
  j["naive_speedup"] = num(w.naive_speedup);
  j["simulated_speedup"] = num(w.simulated_speedup);
  j["naive_interval"] = {num(w.naive_interval.low), num(w.naive_interval.high)};
  j["simulated_interval"] = {num(w.simulated_interval.low), num(w.simulated_interval.high)};
  j["projected_wall_ns"] = num(w.projected_wall_ns);
  j["simulation"] = {{"implemented", w.simulation_implemented},
                     {"method", "classic Amdahl on the driving thread's exposed fractions"},
                     {"note", "replay of the dependency graph is not implemented yet; simulated = naive"}};
  if (w.target) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& t : w.target_rows)
      rows.push_back({{"stage", t.stage}, {"fraction", t.fraction},
                      {"factor_needed", t.factor ? num(*t.factor) : nlohmann::json(nullptr)},
                      {"achievable", t.factor.has_value()}, {"limit", num(t.limit)}});
    j["target"] = {{"speedup", *w.target}, {"stages", std::move(rows)}};
  }
  auto notes = j["notes"];
  for (const auto& n : w.notes) notes.push_back(n);
  j["notes"] = std::move(notes);
  return j;
}

std::string whatif_to_text(const Report& report, const WhatIf& w) {
  std::string out;
  char buf[512];
  if (!w.requests.empty()) {
    std::string what;
    for (const auto& r : w.requests) {
      const StageRow* s = report.find_stage(r.stage);
      std::snprintf(buf, sizeof buf, "%s%s %s (exposed %.1f%%)", what.empty() ? "" : ", ", r.stage.c_str(),
                    times(r.factor).c_str(), s ? s->fraction * 100.0 : 0.0);
      what += buf;
    }
    out += "what if: " + what + "\n";
    std::snprintf(buf, sizeof buf, "classic Amdahl: %s  (95%% interval %s .. %s over %zu steps)\n",
                  times(w.naive_speedup).c_str(), times(w.naive_interval.low).c_str(),
                  times(w.naive_interval.high).c_str(), report.steps);
    out += buf;
    std::snprintf(buf, sizeof buf, "simulated:      %s  (replay not implemented yet: same as classic)\n",
                  times(w.simulated_speedup).c_str());
    out += buf;
    std::snprintf(buf, sizeof buf, "window: %.1f ms -> %.1f ms\n", static_cast<double>(report.wall_ns) / 1e6,
                  w.projected_wall_ns / 1e6);
    out += buf;
  }
  if (w.target) {
    std::snprintf(buf, sizeof buf, "\nfactor each stage alone needs for %s overall:\n", times(*w.target).c_str());
    out += buf;
    for (const auto& t : w.target_rows) {
      if (t.fraction <= 0) continue;
      if (t.factor)
        std::snprintf(buf, sizeof buf, "  %-16s exposed %5.1f%%  needs %s\n", t.stage.c_str(), t.fraction * 100.0,
                      times(*t.factor).c_str());
      else
        std::snprintf(buf, sizeof buf, "  %-16s exposed %5.1f%%  no factor suffices (limit %s)\n", t.stage.c_str(),
                      t.fraction * 100.0, times(t.limit).c_str());
      out += buf;
    }
  }
  std::vector<std::string> notes = report.notes;
  notes.insert(notes.end(), w.notes.begin(), w.notes.end());
  out += "\nnotes:\n";
  for (const auto& n : notes) out += "  - " + n + "\n";
  return out;
}

}  // namespace amdahl::analysis
