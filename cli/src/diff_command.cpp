// `amdahl diff a.amdahl b.amdahl [--format text|json] [-o FILE] [--stages FILE] [--warmup N]
// [--step-name NAME] [--fail-if-slower PCT]`: per-stage change between two runs of the same
// program; exit 3 when b's step is more than PCT percent slower than a's (a CI gate).
#include <cstdio>
#include <memory>
#include <string>

#include "amdahl/analysis/profile_diff.hpp"
#include "amdahl/render/render.hpp"
#include "commands.hpp"
#include "option_checks.hpp"
#include "report_options.hpp"

namespace amdahl::cli {
namespace {

// Whether b's step (window without steps) is more than `pct` percent longer than a's.
bool slower_than(const analysis::ProfileDiff& d, double pct) {
  return d.step_a_ns > 0 && d.step_b_ns > d.step_a_ns * (1 + pct / 100);
}

std::string percent(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", share * 100);
  return buf;
}

}  // namespace

void register_diff_command(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<ReportOptions>();
  auto second = std::make_shared<std::string>();
  auto fail_if_slower = std::make_shared<double>(-1);
  CLI::App* cmd = app.add_subcommand("diff", "per-stage change between two runs: what got faster or slower");
  cmd->add_option("a", opt->profile, "the first (baseline) profile")->required();
  cmd->add_option("b", *second, "the second profile")->required();
  add_output_options(*cmd, *opt, {"text", "json"});
  cmd->add_option("--stages", opt->stages, "stage rule file applied to both runs");
  cmd->add_option("--warmup", opt->warmup, "warm-up steps to exclude in both runs (0 to 1e9), or 'auto' (default)")
      ->check(checks::warmup_steps());
  cmd->add_option("--step-name", opt->step_name, "name of the step range (default: step)");
  cmd->add_option("--fail-if-slower", *fail_if_slower,
                  "PCT: exit 3 when b's step is more than PCT percent slower than a's (for CI)")
      ->check(CLI::NonNegativeNumber);
  cmd->callback([opt, second, fail_if_slower, &exit_code] {
    opt->more_inputs = {*second};
    const analysis::Report a = load_and_analyze(*opt);
    ReportOptions ob = *opt;
    ob.profile = *second;
    const analysis::Report b = load_and_analyze(ob);
    const analysis::ProfileDiff d = analysis::diff_reports(a, b);
    write_output(*opt, render::render(d, render::format_named(opt->format), opt->profile, *second));
    exit_code = 0;
    if (*fail_if_slower >= 0 && slower_than(d, *fail_if_slower)) {
      print_line("", "b is " + percent(d.step_b_ns / d.step_a_ns - 1) + " slower per step than a, more than --fail-if-slower " +
                         percent(*fail_if_slower / 100) + ": exit 3");
      exit_code = 3;
    }
  });
}

}  // namespace amdahl::cli
