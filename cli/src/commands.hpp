// The `amdahl` subcommands. Each command file registers its CLI11 subcommand; its callback
// stores the exit code in `exit_code`. Commands throw typed errors (format::ProfileError,
// analysis errors, UsageError) and main() maps them to exit codes and one clear line.
#pragma once

#include <sys/stat.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "amdahl/analysis/errors.hpp"
#include "amdahl/format/output_file.hpp"
#include "amdahl/render/render.hpp"
#include "amdahl/text/escape.hpp"
#include "progress.hpp"

namespace amdahl::cli {

// A usage error found after parsing (bad STAGE=FACTOR, conflicting options): exit code 1. One
// class for the CLI and the analysis (amdahl/analysis/errors.hpp), caught once in main().
using analysis::UsageError;

// Refuses, before anything is read or written, an output that would destroy an input (the same
// file, whatever the path: st_dev and st_ino compared, links and symbolic links included) or is
// a directory. `what` names the option ("-o", "--chrome"). Empty paths are skipped.
inline void check_output(const std::string& output, const std::vector<std::string>& inputs, const char* what = "-o") {
  if (output.empty() || output == "-") return;  // "-": stdout (output_target.hpp)
  struct stat st {};
  if (::stat(output.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw UsageError(std::string("cannot write ") + what + " " + output + ": it is a directory");
  for (const std::string& in : inputs)
    if (format::same_file(output, in))
      throw UsageError(std::string("refusing to write ") + what + " " + output + ": it is the input " + in +
                       ", which would be destroyed");
}

// A profile (an SQLite database) needs a regular file: refuses /dev/stdout, a FIFO, a device.
inline void check_profile_output(const std::string& output) {
  if (output == "-")
    throw UsageError("cannot write a profile to stdout (-o -): a profile is an SQLite database; give a file name");
  if (format::written_in_place(output))
    throw UsageError("cannot write a profile to " + output +
                     ": it is not a regular file (a profile is an SQLite database; give a file name)");
}

// The text of a `--format json` output and its schema version: render.hpp (the one dispatch of
// the outputs).
using render::json_text;
using render::kJsonSchemaVersion;

// One line on stderr for amdahl: "amdahl: <prefix><text>" with the text's control characters
// escaped (it may carry names from a profile or a file: escape.hpp, terminal_text).
inline void print_line(const char* prefix, const std::string& text) {
  progress().clear();
  std::fprintf(stderr, "amdahl: %s%s\n", prefix, text::terminal_text(text, false).c_str());
}

void register_profile_command(CLI::App& app, int& exit_code);   // profile_command.cpp
void register_report_command(CLI::App& app, int& exit_code);    // report_command.cpp
void register_whatif_command(CLI::App& app, int& exit_code);    // whatif_command.cpp
void register_export_command(CLI::App& app, int& exit_code);    // export_command.cpp
void register_import_command(CLI::App& app, int& exit_code);    // import_command.cpp
void register_diff_command(CLI::App& app, int& exit_code);      // diff_command.cpp
void register_validate_command(CLI::App& app, int& exit_code);  // validate_command.cpp
void register_stages_command(CLI::App& app, int& exit_code);    // stages_command.cpp
void register_version_command(CLI::App& app, int& exit_code);   // version_command.cpp: --version too

}  // namespace amdahl::cli
