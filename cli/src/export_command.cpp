// `amdahl export run.amdahl --chrome trace.json [--window START:END] [--max-events N]`: the
// profile as Chrome trace-event JSON for Perfetto / chrome://tracing.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>

#include "amdahl/format/output_file.hpp"
#include "amdahl/format/profile_store.hpp"
#include "amdahl/export/chrome_trace.hpp"
#include "commands.hpp"
#include "output_target.hpp"
#include "option_checks.hpp"

namespace amdahl::cli {
namespace {

struct ExportOptions {
  std::string profile, chrome, window;
  std::size_t max_events = 1'000'000;
  bool force = false;
};

}  // namespace

void register_export_command(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<ExportOptions>();
  CLI::App* cmd = app.add_subcommand("export", "export a profile as Chrome trace JSON (opens in Perfetto)");
  cmd->add_option("profile", opt->profile, "the profile (.amdahl) to export")->required();
  cmd->add_option("--chrome", opt->chrome, "write Chrome trace-event JSON to FILE ('-': stdout)")->required();
  cmd->add_flag("-f,--force", opt->force, "replace FILE if it exists");
  cmd->add_option("--window", opt->window, "keep only START:END, in ms from the trace start (e.g. 1200:3400; each from 0 to 1e12)")
      ->check(checks::export_window());
  cmd->add_option("--max-events", opt->max_events,
                  "most events to write (default 1000000; from 1 to 1000000000); above it the analysis window, then its "
                  "first part, is kept")
      ->check(checks::whole_in(1, 1'000'000'000));
  cmd->callback([opt, &exit_code] {
    check_output(opt->chrome, {opt->profile}, "--chrome");
    check_overwrite(opt->chrome, opt->force, "--chrome");
    chrome::ChromeExportOptions eo;
    eo.max_events = opt->max_events;
    eo.on_events = [](std::uint64_t n) { progress().update("writing trace", n, "events"); };
    if (!opt->window.empty()) {
      auto [a, b] = chrome::parse_window_ms(opt->window);
      eo.window_start_ns = a;
      eo.window_end_ns = b;
    }
    format::LoadOptions lo;
    lo.on_rows = [](std::uint64_t rows) { progress().update("loading profile", rows, "events"); };
    const format::Profile profile = format::load_profile(opt->profile, lo);
    progress().update("writing trace");
    if (is_stdout_path(opt->chrome)) {
      const chrome::ChromeExportStats st = chrome::write_chrome_trace(profile, std::cout, eo);
      std::cout.flush();
      if (!std::cout) throw format::OutputError("cannot write the trace to stdout");
      if (st.trimmed) print_line("note: ", st.note);
      print_line("", "wrote " + std::to_string(st.events) + " trace events to stdout");
      exit_code = 0;
      return;
    }
    // A temporary of our own, renamed when complete (output_file.hpp): two exports to one file
    // never share one, and a failed export leaves the previous file as it was.
    format::OutputFile file(opt->chrome);
    std::ofstream out(file.write_path(), std::ios::binary | (file.in_place() ? std::ios::app : std::ios::trunc));
    if (!out) throw std::runtime_error("cannot write " + opt->chrome + ": " + std::strerror(errno));
    errno = 0;
    const chrome::ChromeExportStats st = chrome::write_chrome_trace(profile, out, eo);
    out.close();
    if (!out) {  // the stream stops at its first failed write: errno is that write's
      const int e = errno;
      throw format::OutputError("cannot write " + opt->chrome + ": " + (e != 0 ? std::strerror(e) : "write error") +
                                (file.in_place() ? "" : " (the previous file, if any, is unchanged)"));
    }
    file.commit(opt->force);
    if (st.trimmed) print_line("note: ", st.note);
    print_line("", "wrote " + std::to_string(st.events) + " trace events (" + std::to_string(st.launch_flows) +
                       " launch and " + std::to_string(st.item_flows) + " item flow arrows) to " + opt->chrome);
    exit_code = 0;
  });
}

}  // namespace amdahl::cli
