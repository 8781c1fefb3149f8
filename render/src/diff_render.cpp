// The diff of two runs as JSON and text (the figures: analysis/profile_diff.hpp).
#include <cmath>

#include "amdahl/analysis/profile_diff.hpp"
#include "amdahl/render/renderers.hpp"
#include "amdahl/render/finding_text.hpp"
#include "numbers.hpp"

namespace amdahl::render {
using namespace analysis;
using detail::fixed;
using detail::left;
using detail::right;

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
  t += "exposed and host-total time " + unit + "\n" + left("stage", 20) + " " + right("a exp ms", 12) + " " +
       right("b exp ms", 12) + " " + right("change ms", 11) + " " + right("b/a", 8) + " " + right("total ms a|b", 15) +
       " " + right("of step", 9) + "  \n";
  for (const auto& s : d.stages) {
    const std::string name = s.name.size() > 20 ? s.name.substr(0, 19) + "~" : s.name;
    const std::string ratio = s.ratio ? fixed(*s.ratio, 2) + "x" : std::string("-");
    const std::string totals = s.name == analysis::kOtherStage
                                   ? std::string("-")
                                   : fixed(s.total_a_ns / 1e6, 1) + "|" + fixed(s.total_b_ns / 1e6, 1);
    t += left(name, 20) + " " + right(fixed(s.exposed_a_ns / 1e6, 3), 12) + " " +
         right(fixed(s.exposed_b_ns / 1e6, 3), 12) + " " + right(detail::signed_fixed(s.change_ns / 1e6, 3), 11) + " " +
         right(ratio, 8) + " " + right(totals, 15) + " " + right(fixed(s.share_of_step_change * 100, 0), 8) + "%  " +
         s.verdict + "\n";
  }
  t += "\n'b/a': b's exposed time over a's (1.90x: b takes 1.90 times a's time; '-' when a has none).\n"
       "'of step': the stage's change as a share of the step's change (the shares sum to 100%).\n";
  for (const auto& n : to_text(d.notes)) t += "note: " + n + "\n";
  return t;
}

}  // namespace amdahl::render
