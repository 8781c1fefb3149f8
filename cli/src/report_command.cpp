// `amdahl report run.amdahl [--format text|json|html|markdown|csv] [-o FILE] [--stages FILE] [--warmup N]
// [--step-name NAME]`: the stage breakdown of a profile.
#include <memory>
#include <optional>
#include <string>

#include "amdahl/analysis/errors.hpp"
#include "amdahl/analysis/gpu_only.hpp"
#include "amdahl/analysis/whatif.hpp"
#include "amdahl/format/profile_store.hpp"
#include "amdahl/render/render.hpp"
#include "commands.hpp"
#include "error_text.hpp"
#include "report_guidance.hpp"
#include "report_options.hpp"

namespace amdahl::cli {
namespace {

// A profile with GPU records and no step or stage ranges: the GPU-only report (issue 19;
// analysis/gpu_only.hpp). Without GPU records either, the analysis's error stands (exit 2).
void gpu_only_report(const ReportOptions& opt, const analysis::NoRangesError& error) {
  const format::Profile profile = format::load_profile(opt.profile);
  if (!analysis::has_gpu_ops(profile))
    throw analysis::InputError(error_text(error) + "; it has no GPU records either");
  const analysis::GpuOnlyReport r = analysis::summarize_gpu_only(profile);
  write_output(opt, render::render(r, render::format_named(opt.format), opt.profile));
}

}  // namespace

void register_report_command(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand("report", "stage breakdown of a profile: exposed/hidden time, Amdahl projections");
  add_report_options(*cmd, *opt, {"text", "json", "html", "markdown", "csv"});
  auto whatifs = std::make_shared<std::vector<std::string>>();
  cmd->add_option("--whatif", *whatifs,
                  "STAGE=K: add what `amdahl whatif --speedup STAGE=K` gives (repeatable; STAGE:host=K for a GPU "
                  "stage's host part)");
  cmd->callback([opt, whatifs, &exit_code] {
    const auto requests = parse_whatif_requests(*whatifs);  // usage errors before the profile is read
    std::optional<analysis::Report> loaded;
    try {
      loaded.emplace(load_and_analyze(*opt));
    } catch (const analysis::NoRangesError& e) {
      if (!requests.empty())
        throw analysis::InputError(error_text(e) + ": --whatif needs stages (the GPU-only report has none)");
      gpu_only_report(*opt, e);
      exit_code = 0;
      return;
    }
    analysis::Report& report = *loaded;
    std::optional<analysis::WhatIf> whatif;  // guidance: replay beside classic, next actions
    if (opt->format != "csv") whatif = add_report_guidance(report, opt->format, opt->profile, requests);
    write_output(*opt, render::render(report, render::format_named(opt->format), whatif, {opt->profile}));
    exit_code = 0;
  });
}

}  // namespace amdahl::cli
