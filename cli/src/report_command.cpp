// `amdahl report run.amdahl [--format text|json|html|markdown|csv] [-o FILE] [--stages FILE] [--warmup N]
// [--step-name NAME]`: the stage breakdown of a profile.
#include <memory>

#include "amdahl/analysis/whatif.hpp"
#include "amdahl/report/renderers.hpp"
#include "commands.hpp"
#include "report_options.hpp"

namespace amdahl::cli {

void register_report_command(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand("report", "stage breakdown of a profile: exposed/hidden time, Amdahl projections");
  add_report_options(*cmd, *opt, {"text", "json", "html", "markdown", "csv"});
  cmd->callback([opt, &exit_code] {
    const analysis::Report report = load_and_analyze(*opt);
    if (opt->format == "html" || opt->format == "markdown" || opt->format == "csv") {  // amdahl_render
      const report::RenderOptions ro{opt->profile};
      write_output(*opt, opt->format == "csv" ? report::render_csv_steps(report)
                         : opt->format == "markdown"
                             ? report::render_markdown(report, std::nullopt, ro)
                             : report::render_html(report, analysis::compute_whatif(report, {}, std::nullopt), ro));
      exit_code = 0;
      return;
    }
    write_output(*opt, opt->format == "json" ? json_text(analysis::report_to_json(report))
                                             : analysis::report_to_text(report));
    exit_code = 0;
  });
}

}  // namespace amdahl::cli
