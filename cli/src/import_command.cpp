// `amdahl import trace.json[.gz] -o run.amdahl [--force] [--keep-cpu-ops]`: a PyTorch profiler
// (Kineto) Chrome trace as an amdahl profile, ready for report / whatif / export.
#include <cstdio>
#include <memory>

#include "amdahl/format/profile_store.hpp"
#include "amdahl/import/kineto_import.hpp"
#include "commands.hpp"
#include "output_target.hpp"

namespace amdahl::cli {
namespace {

struct ImportOptions {
  std::string trace, output;
  bool force = false, keep_cpu_ops = false;
};

}  // namespace

void register_import_command(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<ImportOptions>();
  CLI::App* cmd = app.add_subcommand("import", "import a PyTorch profiler (Kineto) trace as an amdahl profile");
  cmd->add_option("trace", opt->trace, "the trace (.json or .json.gz, from torch.profiler export_chrome_trace)")
      ->required();
  cmd->add_option("-o,--output", opt->output, "the profile to write (.amdahl)")->required();
  cmd->add_flag("-f,--force", opt->force, "replace the output if it exists");
  cmd->add_flag("--keep-cpu-ops", opt->keep_cpu_ops, "also keep every cpu_op (aten::...) as a range");
  cmd->callback([opt, &exit_code] {
    check_output(opt->output, {opt->trace});
    check_profile_output(opt->output);
    check_overwrite(opt->output, opt->force);
    kineto::KinetoImportOptions io;
    io.keep_cpu_ops = opt->keep_cpu_ops;
    kineto::KinetoImportStats st;
    const format::Profile profile = kineto::import_kineto_file(opt->trace, io, &st);
    format::save_profile(profile, opt->output, opt->force);
    std::fprintf(stderr,
                 "amdahl: imported %zu ranges, %zu CUDA API calls, %zu GPU operations on %zu threads from %s "
                 "(%zu CPU op events not kept%s) into %s\n",
                 st.ranges, st.api_calls, st.gpu_ops, st.threads, text::terminal_text(opt->trace, false).c_str(),
                 st.skipped_cpu_ops, opt->keep_cpu_ops ? "" : "; --keep-cpu-ops keeps them",
                 text::terminal_text(opt->output, false).c_str());
    if (st.step_source == "ProfilerStep")
      std::fprintf(stderr, "amdahl: %zu steps from ProfilerStep#N ranges\n", st.steps);
    else if (st.step_source == "Optimizer.step")
      std::fprintf(stderr, "amdahl: %zu steps from Optimizer.step ranges (no ProfilerStep#N in the trace)\n", st.steps);
    else
      std::fprintf(stderr, "amdahl: note: no steps: the trace has neither ProfilerStep#N nor Optimizer.step ranges\n");
    if (st.gpu_ops_without_call)
      std::fprintf(stderr, "amdahl: note: %zu GPU operations had no launching CUDA call in the trace\n",
                   st.gpu_ops_without_call);
    exit_code = 0;
  });
}

}  // namespace amdahl::cli
