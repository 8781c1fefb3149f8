// The diff of two runs as JSON and text (the figures: analysis/profile_diff.hpp).
#include <cmath>
#include <cstdio>

#include "amdahl/analysis/profile_diff.hpp"
#include "amdahl/render/renderers.hpp"
#include "amdahl/render/finding_text.hpp"
#include "numbers.hpp"

namespace amdahl::render {
using namespace analysis;
namespace {

using detail::fmt;

}  // namespace

nlohmann::json diff_to_json(const ProfileDiff& d) {
  nlohmann::json j;
  j["per_step"] = d.per_step;
  j["steps"] = {d.steps_a, d.steps_b};
  j["step_ns"] = {std::llround(d.step_a_ns), std::llround(d.step_b_ns)};
  j["speedup"] = d.speedup;
  j["step_ratio"] = d.speedup > 0 ? 1 / d.speedup : 1.0;
  nlohmann::json stages = nlohmann::json::array();
  for (const auto& s : d.stages) {
    stages.push_back({{"name", s.name},
                      {"exposed_ns", {std::llround(s.exposed_a_ns), std::llround(s.exposed_b_ns)}},
                      {"total_ns", {std::llround(s.total_a_ns), std::llround(s.total_b_ns)}},
                      {"fraction", {s.fraction_a, s.fraction_b}},
                      {"change_ns", std::llround(s.change_ns)},
                      {"ratio", s.ratio ? nlohmann::json(*s.ratio) : nlohmann::json(nullptr)},
                      {"share_of_step_change", s.share_of_step_change},
                      {"verdict", s.verdict}});
  }
  j["stages"] = std::move(stages);
  j["summary"] = to_text(d.summary);
  j["notes"] = to_text(d.notes);
  return j;
}

std::string diff_to_text(const ProfileDiff& d, const std::string& name_a, const std::string& name_b) {
  const std::string unit = d.per_step ? "per step" : "per window";
  std::string t = "a: " + name_a + " (" + std::to_string(d.steps_a) + " steps)\nb: " + name_b + " (" +
                  std::to_string(d.steps_b) + " steps)\n" + to_text(d.summary) + "\n\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-20s %12s %12s %11s %8s %15s %9s  %s\n", "stage", "a exp ms", "b exp ms",
                "change ms", "b/a", "total ms a|b", "of step", "");
  t += std::string("exposed and host-total time ") + unit + "\n" + line;
  for (const auto& s : d.stages) {
    const std::string name = s.name.size() > 20 ? s.name.substr(0, 19) + "~" : s.name;
    const std::string ratio = s.ratio ? fmt("%.2fx", *s.ratio) : std::string("-");
    const std::string totals = s.name == analysis::kOtherStage
                                   ? std::string("-")
                                   : fmt("%.1f", s.total_a_ns / 1e6) + "|" + fmt("%.1f", s.total_b_ns / 1e6);
    std::snprintf(line, sizeof line, "%-20s %12.3f %12.3f %+11.3f %8s %15s %8.0f%%  %s\n", name.c_str(),
                  s.exposed_a_ns / 1e6, s.exposed_b_ns / 1e6, s.change_ns / 1e6, ratio.c_str(), totals.c_str(),
                  s.share_of_step_change * 100, s.verdict.c_str());
    t += line;
  }
  t += "\n'b/a': b's exposed time over a's (1.90x: b takes 1.90 times a's time; '-' when a has none).\n"
       "'of step': the stage's change as a share of the step's change (the shares sum to 100%).\n";
  for (const auto& n : to_text(d.notes)) t += "note: " + n + "\n";
  return t;
}

}  // namespace amdahl::render
