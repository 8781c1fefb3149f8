// `amdahl validate base.amdahl improved.amdahl [--format text|json] [--all-stages]
// [--min-change PCT] [--stages FILE] [--warmup N] [--step-name NAME] [-o FILE]`: measures each
// stage's real acceleration between two runs, predicts the speedup from the base run alone
// (classic and simulated) and reports both errors against the measured speedup.
#include <memory>

#include "amdahl/analysis/validate.hpp"
#include "amdahl/render/render.hpp"
#include "commands.hpp"
#include "option_checks.hpp"
#include "report_options.hpp"

namespace amdahl::cli {

void register_validate_command(CLI::App& app, int& exit_code) {
  struct Opts : ReportOptions {
    std::string improved;
    bool all_stages = false;
    double min_change_pct = 3.0;
  };
  auto opt = std::make_shared<Opts>();
  CLI::App* cmd = app.add_subcommand(
      "validate", "compare the projections from a base run with a really improved run: measured vs predicted speedup");
  add_report_options(*cmd, *opt, {"text", "json"});
  cmd->add_option("improved", opt->improved, "the improved run's profile (.amdahl)")->required();
  cmd->add_flag("--all-stages", opt->all_stages, "use every stage's measured factor, also those that changed little");
  cmd->add_option("--min-change", opt->min_change_pct,
                  "ignore stages whose work per step changed by less than PCT percent (default 3)")
      ->check(checks::number_in(0, 100, "PCT"));
  cmd->callback([opt, &exit_code] {
    opt->more_inputs = {opt->improved};
    const analysis::Report base = load_and_analyze(*opt);
    ReportOptions second = *opt;
    second.profile = opt->improved;
    const analysis::Report improved = load_and_analyze(second);
    analysis::ValidateOptions vo;
    vo.all_stages = opt->all_stages;
    vo.min_change = opt->min_change_pct / 100.0;
    const analysis::Validation v = analysis::validate_runs(base, improved, vo);
    write_output(*opt, render::render(base, improved, v, render::format_named(opt->format)));
    exit_code = 0;
  });
}

}  // namespace amdahl::cli
