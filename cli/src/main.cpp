// Entry point of `amdahl`: registers the subcommands, parses, runs, and maps errors to exit
// codes (0 success, 1 usage error, 2 bad input) with one clear line on stderr (its control
// characters escaped: a message may quote a name from a profile). An analysis error's typed
// problem is worded by render (error_text.hpp), so the analysis names no flag.
#include <cstdio>
#include <cstring>
#include <exception>

#include "commands.hpp"
#include "error_text.hpp"
#include "amdahl/launch/launcher.hpp"
#include "amdahl/analysis/errors.hpp"
#include "amdahl/format/profile_store.hpp"

int main(int argc, char** argv) {
  amdahl::launch::ignore_file_size_signal();  // a full file system is an error line, not a crash
  // --quiet is known before parsing (the progress line's clock starts now); a profiled
  // command's own arguments after "--" are not amdahl's.
  for (int i = 1; i < argc && std::strcmp(argv[i], "--") != 0; ++i)
    if (std::strcmp(argv[i], "-q") == 0 || std::strcmp(argv[i], "--quiet") == 0) amdahl::cli::set_quiet(true);
  amdahl::cli::progress();
  CLI::App app{"amdahl: find the bottleneck of a training run and project what a faster stage buys"};
  app.require_subcommand(1);
  app.fallthrough();  // --quiet after the subcommand too
  bool quiet = false;
  app.add_flag("-q,--quiet", quiet, "no progress line on stderr (it shows only on a terminal, after 1 s of work)");
  // A parse error (unknown option, a number out of its range: option_checks.hpp) is one line
  // like every other error, exit 1.
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return "amdahl: error: " + amdahl::text::terminal_text(e.what(), false) + " (--help lists the options)\n";
  });
  int exit_code = 0;
  amdahl::cli::register_profile_command(app, exit_code);
  amdahl::cli::register_report_command(app, exit_code);
  amdahl::cli::register_whatif_command(app, exit_code);
  amdahl::cli::register_export_command(app, exit_code);
  amdahl::cli::register_import_command(app, exit_code);
  amdahl::cli::register_diff_command(app, exit_code);
  amdahl::cli::register_validate_command(app, exit_code);
  amdahl::cli::register_stages_command(app, exit_code);
  amdahl::cli::register_version_command(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 1;
  } catch (const amdahl::analysis::UsageError& e) {  // the one UsageError (analysis/errors.hpp)
    amdahl::cli::print_line("error: ", amdahl::cli::error_text(e));
    return 1;
  } catch (const amdahl::format::ProfileError& e) {
    amdahl::cli::print_line("error: ", amdahl::cli::error_text(e));
    return 2;
  } catch (const amdahl::analysis::InputError& e) {
    amdahl::cli::print_line("error: ", amdahl::cli::error_text(e));
    return 2;
  } catch (const std::exception& e) {
    amdahl::cli::print_line("error: ", amdahl::cli::error_text(e));
    return 2;
  }
  return exit_code;
}
