// `amdahl whatif run.amdahl --speedup STAGE=FACTOR [...] [--target 2x] [--format text|json]`:
// projected whole-run speedup if stages were FACTOR times faster, and factors for a target.
// `--workers N [--prefetch P] [--worker-stages S,...]`: the structural what-if of moving the
// driving thread's loading onto N loader workers (restructure.hpp), combinable with --speedup.
#include <memory>
#include <optional>

#include "amdahl/analysis/rank_whatif.hpp"
#include "amdahl/analysis/restructure.hpp"
#include "amdahl/analysis/whatif.hpp"
#include "amdahl/render/finding_text.hpp"
#include "amdahl/render/render.hpp"
#include "commands.hpp"
#include "option_checks.hpp"
#include "option_parse.hpp"
#include "report_options.hpp"

namespace amdahl::cli {
namespace {

// --straggler-fixed needs a straggler: an InputError that says why there is none (the ranks'
// line, ranks.hpp).
void check_straggler_fixed(const analysis::Report& report) {
  if (report.ranks.straggler) return;
  throw analysis::InputError(report.ranks.rows.size() < 2
                                 ? "--straggler-fixed needs a profile with two or more ranks"
                                 : "--straggler-fixed: this profile has no straggler (" +
                                       render::to_text(report.ranks.line) + ")");
}

}  // namespace

void register_whatif_command(CLI::App& app, int& exit_code) {
  struct Opts : ReportOptions {
    std::vector<std::string> speedups;
    std::string target;
    std::string workers, prefetch, worker_stages;
    std::string ranks, bandwidth;  // data parallel (rank_whatif.hpp)
    bool straggler_fixed = false;
  };
  auto opt = std::make_shared<Opts>();
  CLI::App* cmd = app.add_subcommand("whatif", "project the speedup of making stages faster (classic Amdahl and a replay of the run)");
  add_report_options(*cmd, *opt, {"text", "json"});
  cmd->add_option("--speedup", opt->speedups, "STAGE=FACTOR (2, 2x, 0.5 = twice slower; from 0.01 to 1e6); repeatable")
      ->check(checks::speedup_request());
  cmd->add_option("--target", opt->target, "overall speedup to reach (e.g. 2x; above 1, at most 1e6): the factor each stage needs")
      ->check(checks::target_speedup());
  cmd->add_option("--workers", opt->workers,
                  "N: move the loading the driving thread does inline (num_workers=0) onto N loader workers "
                  "(batch k on worker k mod N) and replay; N from 1 to 4096")
      ->check(checks::worker_count());
  cmd->add_option("--prefetch", opt->prefetch, "with --workers: batches in flight per worker (default 2, as PyTorch; 1 to 4096)")
      ->check(checks::worker_count());
  cmd->add_option("--worker-stages", opt->worker_stages,
                  "with --workers: the loading stages to move (default disk_io,cpu_preprocess)");
  cmd->add_option("--ranks", opt->ranks,
                  "M: project a data-parallel run to M ranks (ring all-reduce model from the measured bytes)");
  cmd->add_option("--bandwidth", opt->bandwidth, "with --ranks: the ring's link bandwidth in GB/s");
  cmd->add_flag("--straggler-fixed", opt->straggler_fixed, "the straggler rank as fast as the others (estimate)");
  cmd->callback([opt, &exit_code] {
    if (opt->speedups.empty() && opt->target.empty() && opt->workers.empty() && opt->ranks.empty() &&
        !opt->straggler_fixed)
      throw UsageError("whatif needs --speedup STAGE=FACTOR, --target X, --workers N, --ranks M and/or --straggler-fixed");
    if (opt->ranks.empty() && !opt->bandwidth.empty()) throw UsageError("--bandwidth goes with --ranks M");
    if (opt->workers.empty() && (!opt->prefetch.empty() || !opt->worker_stages.empty()))
      throw UsageError("--prefetch and --worker-stages go with --workers N");
    std::optional<analysis::LoaderWorkers> workers;
    if (!opt->workers.empty()) {
      workers.emplace();
      workers->workers = parse_count_option(opt->workers, "--workers");
      if (!opt->prefetch.empty()) workers->prefetch = parse_count_option(opt->prefetch, "--prefetch");
      if (!opt->worker_stages.empty()) workers->stages = parse_stage_list(opt->worker_stages);
    }
    // Parse the request before loading, so syntax errors are usage errors whatever the file.
    std::vector<analysis::SpeedupRequest> requests;
    for (const auto& s : opt->speedups) requests.push_back(parse_speedup(s));
    std::optional<double> target;
    if (!opt->target.empty()) target = parse_factor(opt->target);
    std::size_t to_ranks = 0;
    std::optional<double> bandwidth;
    if (!opt->ranks.empty()) to_ranks = parse_count_option(opt->ranks, "--ranks");
    if (!opt->bandwidth.empty()) bandwidth = parse_factor(opt->bandwidth) * 1e9;
    const analysis::Report report = load_and_analyze(*opt);
    analysis::RankWhatIf rw;
    rw.straggler_fixed = opt->straggler_fixed;
    if (rw.straggler_fixed) check_straggler_fixed(report);
    if (to_ranks > 0) {
      rw.projection = analysis::project_ranks(report.ranks, to_ranks, bandwidth);
      requests.push_back({"communication", rw.projection->factor, false});
    }
    analysis::WhatIfOptions wo;
    wo.curves = opt->format == "json";  // the curves are only in the JSON
    progress().update("replaying the what-if");
    std::optional<analysis::WhatIf> w;
    if (!requests.empty() || target || workers)
      w = workers ? analysis::compute_whatif_with_workers(report, requests, target, *workers, wo)
                  : analysis::compute_whatif(report, requests, target, wo);
    // Text: the stage breakdown (the report without its notes), then the what-if and all notes.
    write_output(*opt, render::render(report, w, rw, render::format_named(opt->format)));
    exit_code = 0;
  });
}

}  // namespace amdahl::cli
