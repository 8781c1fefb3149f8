// `amdahl stages run.amdahl [--stages FILE] [--format text|json] [-o FILE]`: every range name of
// the profile with the stage it went to, the rule that decided, its range count and total time
// (analysis/stage_mapping.hpp, rendered by render/src/stages_render.cpp); the report shows the
// first few.
#include <memory>

#include "amdahl/render/render.hpp"
#include "commands.hpp"
#include "report_options.hpp"

namespace amdahl::cli {

void register_stages_command(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand("stages", "which range names went to which stage, by which rule, with their time");
  add_report_options(*cmd, *opt, {"text", "json"});
  cmd->callback([opt, &exit_code] {
    const analysis::Report report = load_and_analyze(*opt);
    write_output(*opt, render::render(report.stage_mapping, render::format_named(opt->format)));
    exit_code = 0;
  });
}

}  // namespace amdahl::cli
