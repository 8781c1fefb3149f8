// Options shared by `amdahl report` and `amdahl whatif` (profile path, --stages, --warmup,
// --step-name, --format, -o) and the steps they share: load + analyze, write the output.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "amdahl/analysis/report.hpp"

namespace amdahl::cli {

struct ReportOptions {
  std::string profile;
  std::string format = "text";  // resolved after parsing: --format, else -o's extension, else text
  std::string format_given;     // --format as given (empty: not given)
  std::string output;  // empty or "-": stdout
  bool force = false;  // --force: replace an existing -o file (output_target.hpp)
  std::string stages;  // rule file
  std::string warmup = "auto";
  std::string step_name = "step";
  std::vector<std::string> more_inputs;  // diff / validate: the second profile (for check_output)

  // Every file the command reads: the output may be none of them.
  std::vector<std::string> inputs() const;
};

// Adds the shared options to `cmd` (--format takes `formats`).
void add_report_options(CLI::App& cmd, ReportOptions& opt, const std::vector<std::string>& formats);

// Adds --format, -o and --force alone (diff has its own positionals), and resolves opt.format
// once parsing is complete (output_target.hpp: resolve_output_format).
void add_output_options(CLI::App& cmd, ReportOptions& opt, const std::vector<std::string>& formats);

// Loads the profile (format::ProfileError on bad input) and analyses it (analysis errors;
// UsageError for a bad --warmup; analysis::InputError for an unreadable --stages file).
analysis::Report load_and_analyze(const ReportOptions& opt);

// Refuses an -o that is an input or a directory (check_output), or an existing file without
// --force (check_overwrite); call it before loading.
void check_report_output(const ReportOptions& opt);

// Writes `text` to -o FILE (output_file.hpp: a temporary renamed into place; devices, FIFOs and
// /dev/stdout in place) or stdout (no -o, or -o -). Text output (--format text) has its control bytes escaped
// (terminal_text). Throws format::OutputError when the file cannot be written: the previous
// file, if any, is left as it was.
void write_output(const ReportOptions& opt, const std::string& text);

}  // namespace amdahl::cli
