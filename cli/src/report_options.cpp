// Shared plumbing of `amdahl report` / `amdahl whatif`: options, loading, analysing, output.
#include "report_options.hpp"

#include <malloc.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <utility>

#include "amdahl/analysis/errors.hpp"
#include "amdahl/format/profile_store.hpp"
#include "commands.hpp"
#include "output_target.hpp"
#include "rule_file.hpp"
#include "option_checks.hpp"

namespace amdahl::cli {

void add_output_options(CLI::App& cmd, ReportOptions& opt, const std::vector<std::string>& formats) {
  cmd.add_option("--format", opt.format_given, "output format (default: from -o's extension, else text)")
      ->check(CLI::IsMember(formats));
  cmd.add_option("-o,--output", opt.output,
                 "write the output to FILE instead of stdout ('-': stdout); .html .md .json .csv set the format");
  cmd.add_flag("-f,--force", opt.force, "replace FILE if it exists");
  cmd.parse_complete_callback([&cmd, &opt, formats] {
    opt.format = resolve_output_format(opt.output, opt.format_given, "text", formats, cmd.get_name().c_str());
  });
}

void add_report_options(CLI::App& cmd, ReportOptions& opt, const std::vector<std::string>& formats) {
  cmd.add_option("profile", opt.profile, "the profile (.amdahl) to analyse")->required();
  add_output_options(cmd, opt, formats);
  cmd.add_option("--stages", opt.stages, "stage rule file (PATTERN -> STAGE lines; docs/analysis.md)");
  cmd.add_option("--warmup", opt.warmup, "warm-up steps to exclude (0 to 1e9), or 'auto' (default)")
      ->check(checks::warmup_steps());
  cmd.add_option("--step-name", opt.step_name, "name of the step range (default: step)");
}

analysis::Report load_and_analyze(const ReportOptions& opt) {
  check_report_output(opt);
  analysis::AnalysisOptions ao;
  ao.step_name = opt.step_name;
  if (opt.step_name.empty()) throw UsageError("--step-name must not be empty");
  if (opt.warmup != "auto") {
    std::size_t used = 0;
    long long n = -1;
    try {
      n = std::stoll(opt.warmup, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != opt.warmup.size() || n < 0)
      throw UsageError("--warmup expects a number of steps >= 0 or 'auto', got '" + opt.warmup + "'");
    ao.warmup = static_cast<std::size_t>(n);
  }
  if (!opt.stages.empty()) {
    ao.user_rules = analysis::parse_stage_rules(read_rule_file(opt.stages), opt.stages);
    ao.user_rules_given = true;
  }
  // Large blocks (timeline lanes, graph arrays) go straight to mmap and back to the system
  // when freed: glibc's adaptive threshold would otherwise keep the freed timeline in the heap
  // while the replay allocates anew (a 10-million-event profile must fit in 2 GB).
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  format::LoadOptions lo;
  lo.analysis_columns_only = true;  // the analysis reads only these; SQLite's cost is per column
  lo.on_rows = [](std::uint64_t rows) { progress().update("loading profile", rows, "events"); };
  format::Profile profile = format::load_profile(opt.profile, lo);
  progress().update("analysing");
  return analysis::analyze(std::move(profile), ao);  // its big tables go once the graph is built
}

std::vector<std::string> ReportOptions::inputs() const {
  std::vector<std::string> in{profile, stages};
  in.insert(in.end(), more_inputs.begin(), more_inputs.end());
  return in;
}

void check_report_output(const ReportOptions& opt) {
  check_output(opt.output, opt.inputs());
  check_overwrite(opt.output, opt.force);
}

void write_output(const ReportOptions& opt, const std::string& raw) {
  // Text for people: no control character of a name reaches the terminal (the names are
  // escaped where they enter the report; this catches any other path, newlines kept).
  const std::string text = opt.format == "text" ? text::terminal_text(raw, true) : raw;
  progress().clear();
  if (opt.output.empty() || is_stdout_path(opt.output)) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return;
  }
  check_report_output(opt);  // again: nothing writes an output without this check
  format::write_file(opt.output, text, opt.force);
}

}  // namespace amdahl::cli
