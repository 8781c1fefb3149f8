// The report's guidance as JSON and text (guidance_render.hpp).
#include "amdahl/render/guidance_render.hpp"
#include "amdahl/render/check_command.hpp"
#include "amdahl/render/finding_text.hpp"
#include "numbers.hpp"

#include <cmath>
#include <string>

namespace amdahl::render {
using namespace analysis;
namespace {

// Projections: a limit from 1e12 up is unbounded (null in JSON, "inf" in text).
nlohmann::json num(double v) { return detail::num_below_1e12(v); }
std::string times(double s) { return detail::capped_speedup_text(s, 2); }
// Four right-aligned figures: the first `first` wide, the others 7.
std::string four(const std::string& a, const std::string& b, const std::string& c, const std::string& d,
                 std::size_t first) {
  return detail::right(a, first) + " " + detail::right(b, 7) + " " + detail::right(c, 7) + " " + detail::right(d, 7);
}

nlohmann::json points_json(const SpeedupPoints& p) {
  return {{"2x", num(p.x2)}, {"4x", num(p.x4)}, {"10x", num(p.x10)}, {"limit", num(p.limit)}};
}

const char* outcome_name(TargetOutcome o) {
  switch (o) {
    case TargetOutcome::Reached: return "reached";
    case TargetOutcome::BeyondSearch: return "beyond_search";
    case TargetOutcome::NotReachable: return "not_reachable";
  }
  return "not_reachable";
}

}  // namespace

std::string target_basis(const StageProjection& s) { return s.replay ? "replay" : "classic"; }

std::string target_text(const StageProjection& s, const Projections& p) {
  const double lim = s.replay ? s.replay->limit : s.classic.limit;
  switch (s.target_outcome) {
    case TargetOutcome::Reached: return s.target_factor ? times(*s.target_factor) : "n/a";
    case TargetOutcome::BeyondSearch: return "more than " + detail::fixed(p.max_factor, 0) + "x";
    case TargetOutcome::NotReachable:
      return "not reachable by this stage alone (" + target_basis(s) + " limit " + times(lim) + ")";
  }
  return "n/a";
}

nlohmann::json projections_to_json(const Projections& p) {
  nlohmann::json j;
  j["headline"] = p.replay ? "replay" : "classic";
  j["classic_only_reason"] = p.replay ? nlohmann::json(nullptr) : nlohmann::json(to_text(p.classic_only_reason));
  j["replay_meaning"] = kReplayMeaning;
  j["classic_meaning"] = kClassicMeaning;
  j["replay_lower_bounds"] = p.replay_lower_bounds;
  j["target_speedup"] = p.target;
  j["max_factor"] = p.max_factor;
  j["replays"] = p.replays;
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& s : p.stages) {
    nlohmann::json o;
    o["stage"] = s.stage;
    o["fraction"] = s.fraction;
    o["classic_share"] = s.classic_share;
    o["classic"] = points_json(s.classic);
    o["replay"] = s.replay ? points_json(*s.replay) : nlohmann::json(nullptr);
    o["target_basis"] = target_basis(s);
    o["target_outcome"] = outcome_name(s.target_outcome);
    o["factor_for_target"] = s.target_factor ? num(*s.target_factor) : nlohmann::json(nullptr);
    o["target_text"] = target_text(s, p);
    rows.push_back(std::move(o));
  }
  j["stages"] = std::move(rows);
  return j;
}

nlohmann::json next_actions_to_json(const std::vector<NextAction>& actions) {
  nlohmann::json a = nlohmann::json::array();
  for (std::size_t i = 0; i < actions.size(); ++i) {
    const auto& x = actions[i];
    a.push_back({{"rank", i + 1}, {"kind", x.kind}, {"stage", x.stage.empty() ? nlohmann::json(nullptr) : nlohmann::json(x.stage)},
                 {"text", to_text(x.text)}, {"command", to_command(x)},
                 {"speedup", x.speedup ? num(*x.speedup) : nlohmann::json(nullptr)},
                 {"basis", x.basis.empty() ? nlohmann::json(nullptr) : nlohmann::json(x.basis)}});
  }
  return a;
}

nlohmann::json user_whatif_to_json(const UserWhatIf& u) {
  nlohmann::json sp = nlohmann::json::object();
  for (const auto& [stage, k] : u.speedups) sp[stage] = k;
  return {{"change", changes_text(u.speedups)},
          {"speedups", std::move(sp)},
          {"classic_speedup", num(u.classic)},
          {"replay_speedup", num(u.replay)},
          {"replayed", u.replayed},
          {"replay_interval", {num(u.replay_low), num(u.replay_high)}},
          {"bottleneck", to_text(u.bottleneck_line)},
          {"bounds", u.bounds}};
}

std::string projections_to_text(const Projections& p) {
  if (!p.computed) return "";
  std::string out = "\nprojections: the whole run's speedup with one stage k times faster\n";
  if (p.replay) {
    out += "  replay (the headline figure): " + std::string(kReplayMeaning) + "\n";
  } else {
    out += "  classic Amdahl only: " + to_text(p.classic_only_reason) + "\n";
  }
  out += "  classic Amdahl: " + std::string(kClassicMeaning) + "\n";
  const std::string target = "for " + detail::fixed(p.target, 2) + "x overall";
  if (p.replay)
    out += detail::left("stage", 16) + " " + four("replay 2x", "4x", "10x", "limit", 9) + " | " +
           four("classic 2x", "4x", "10x", "limit", 10) + " | " + target + "\n";
  else
    out += detail::left("stage", 16) + " " + four("classic 2x", "4x", "10x", "limit", 10) + " | " + target + "\n";
  bool skipped = false;
  for (const auto& s : p.stages) {
    const std::string t = target_text(s, p) + (p.replay && !s.replay ? " (classic)" : "");
    const std::string classic =
        four(times(s.classic.x2), times(s.classic.x4), times(s.classic.x10), times(s.classic.limit), 10);
    if (p.replay) {
      const std::string replayed = s.replay ? four(times(s.replay->x2), times(s.replay->x4), times(s.replay->x10),
                                                   times(s.replay->limit), 9)
                                            : four("-", "-", "-", "-", 9);
      out += detail::left(s.stage, 16) + " " + replayed + " | " + classic + " | " + t + "\n";
      skipped = skipped || !s.replay;
    } else {
      out += detail::left(s.stage, 16) + " " + classic + " | " + t + "\n";
    }
  }
  if (skipped)
    out += "  -: not replayed (a large profile: replays kept to the largest stages); amdahl whatif --speedup "
           "STAGE=K replays any\n";
  if (p.replay_lower_bounds)
    out += "  replay figures are lower bounds: waits on the critical path are linked to nothing (see notes)\n";
  return out;
}

std::string user_whatif_to_text(const UserWhatIf& u) {
  std::string out = "\nwhat-if (--whatif " + changes_text(u.speedups) + "): ";
  if (u.replayed)
    out += times(u.replay) + " by replay (95% interval " + times(u.replay_low) + " .. " + times(u.replay_high) + ")" +
           (u.bounds ? " [lower bound]" : "") + "; classic Amdahl " + times(u.classic) + "\n";
  else
    out += times(u.classic) + " classic Amdahl (no replay: see notes)\n";
  if (u.bottleneck_line) out += "  " + to_text(u.bottleneck_line) + "\n";
  return out;
}

std::string next_actions_to_text(const std::vector<NextAction>& actions) {
  if (actions.empty()) return "";
  std::string out = "\nwhat to do next:\n";
  for (std::size_t i = 0; i < actions.size(); ++i) {
    out += "  " + std::to_string(i + 1) + ". " + to_text(actions[i].text) + "\n";
    out += "     check: " + to_command(actions[i]) + "\n";
  }
  return out;
}

}  // namespace amdahl::render
