// `amdahl diff a.amdahl b.amdahl [--format text|json] [-o FILE] [--stages FILE] [--warmup N]
// [--step-name NAME]`: per-stage change between two runs of the same program.
#include <memory>

#include "amdahl/report/profile_diff.hpp"
#include "commands.hpp"
#include "option_checks.hpp"
#include "report_options.hpp"

namespace amdahl::cli {

void register_diff_command(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<ReportOptions>();
  auto second = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("diff", "per-stage change between two runs: what got faster or slower");
  cmd->add_option("a", opt->profile, "the first (baseline) profile")->required();
  cmd->add_option("b", *second, "the second profile")->required();
  cmd->add_option("--format", opt->format, "output format")->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("-o,--output", opt->output, "write the output to FILE instead of stdout");
  cmd->add_option("--stages", opt->stages, "stage rule file applied to both runs");
  cmd->add_option("--warmup", opt->warmup, "warm-up steps to exclude in both runs (0 to 1e9), or 'auto' (default)")
      ->check(checks::warmup_steps());
  cmd->add_option("--step-name", opt->step_name, "name of the step range (default: step)");
  cmd->callback([opt, second, &exit_code] {
    opt->more_inputs = {*second};
    const analysis::Report a = load_and_analyze(*opt);
    ReportOptions ob = *opt;
    ob.profile = *second;
    const analysis::Report b = load_and_analyze(ob);
    const report::ProfileDiff d = report::diff_reports(a, b);
    write_output(*opt, opt->format == "json" ? json_text(report::diff_to_json(d))
                                             : report::diff_to_text(d, opt->profile, *second));
    exit_code = 0;
  });
}

}  // namespace amdahl::cli
