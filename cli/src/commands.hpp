// The `amdahl` subcommands. Each command file registers its CLI11 subcommand; its callback
// stores the exit code in `exit_code`. Commands throw typed errors (format::ProfileError,
// analysis errors, UsageError) and main() maps them to exit codes and one clear line.
#pragma once

#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

namespace amdahl::cli {

// A usage error found after parsing (bad STAGE=FACTOR, conflicting options): exit code 1.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The text of a `--format json` output: indented, newline-terminated; strings that are not
// UTF-8 (profiles keep NVTX names as recorded) get U+FFFD instead of making dump() throw.
inline std::string json_text(const nlohmann::json& j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

void register_profile_command(CLI::App& app, int& exit_code);   // profile_command.cpp
void register_report_command(CLI::App& app, int& exit_code);    // report_command.cpp
void register_whatif_command(CLI::App& app, int& exit_code);    // whatif_command.cpp
void register_export_command(CLI::App& app, int& exit_code);    // export_command.cpp
void register_import_command(CLI::App& app, int& exit_code);    // import_command.cpp
void register_diff_command(CLI::App& app, int& exit_code);      // diff_command.cpp
void register_validate_command(CLI::App& app, int& exit_code);  // validate_command.cpp

}  // namespace amdahl::cli
