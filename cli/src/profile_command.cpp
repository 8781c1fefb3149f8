// `amdahl profile [-o FILE] [--force] [--stages FILE] [--torch|--no-torch] [--multicast-off] -- COMMAND ARGS...`: checks
// the options and the output before anything runs, builds the command's environment (collector,
// exit hook, CUPTI, torch), runs it and makes its profile through the launch library
// (include/amdahl/launch/: launch_and_wait, record_run), saves the .amdahl file and prints a
// short summary. Exit code: the command's own (128+N when it died of signal N).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "amdahl/format/input_file.hpp"
#include "amdahl/analysis/stage_rules.hpp"
#include "amdahl/format/profile_store.hpp"
#include "amdahl/launch/launcher.hpp"
#include "amdahl/launch/recorded_run.hpp"
#include "commands.hpp"
#include "output_target.hpp"
#include "elf_probe.hpp"
#include "option_checks.hpp"
#include "python_command.hpp"
#include "rule_file.hpp"
#include "gpu_schedule.hpp"

namespace amdahl::cli {
namespace {

namespace fs = std::filesystem;
using format::RecordSet;
using launch::LaunchResult;
using launch::PartDir;
using launch::RunSetup;
using launch::SignalScope;
using launch::launch_and_wait;
using launch::resolve_command;

// The collector is not where amdahl looks: an installation problem, exit code 2 (main.cpp).
class CollectorMissing : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ProfileOptions {
  std::string output;
  bool force = false;
  std::string stages;
  bool torch = false;  // --torch: annotate a PyTorch script through amdahl_torch (docs/torch.md)
  bool no_torch = false;  // --no-torch: not even for a Python command (where it is on by default)
  std::string gpu_api = "launch";  // --gpu-api: which CUDA API calls get a record (docs/cupti.md)
  std::optional<std::string> gpu_steps;  // --gpu-steps all|FROM:TO: CUPTI collects throughout / during these steps only
  std::optional<std::string> gpu_sample;  // --gpu-sample K/M[@SKIP]: K steps of every M (the default: kDefaultGpuSample)
  bool multicast_off = false;  // --multicast-off: NVLink multicast off in NCCL, PyTorch, NVSHMEM
  std::vector<std::string> command;
};

// Text for a stderr line (names, paths): control characters escaped (escape.hpp).
std::string esc(const std::string& text) { return text::terminal_text(text, false); }

// `amdahl-<command basename>-<YYYYmmdd-HHMMSS>.amdahl` in the current directory.
std::string default_output(const std::string& command) {
  std::string base = fs::path(command).filename().string();
  for (char& c : base) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    if (!ok) c = '_';
  }
  if (base.empty()) base = "command";
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::localtime_r(&now, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  return "amdahl-" + base + "-" + stamp + ".amdahl";
}

// Where the collector libraries are: $AMDAHL_LIB_DIR when set, else <bindir>/../lib of the
// running amdahl binary (build/bin + build/lib, and an install's PREFIX/bin + PREFIX/lib).
fs::path library_dir() {
  if (const char* dir = std::getenv("AMDAHL_LIB_DIR"); dir && *dir) return fs::path(dir).lexically_normal();
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  return (exe.parent_path() / ".." / "lib").lexically_normal();
}

// --torch (owned by the torch annotations, docs/torch.md): the directory holding amdahl_torch
// and its sitecustomize.py, <bindir>/../share/amdahl/python (the build tree and an install
// alike). Empty when it is not there.
fs::path torch_python_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  const fs::path dir = (exe.parent_path() / ".." / "share" / "amdahl" / "python").lexically_normal();
  return fs::exists(dir / "sitecustomize.py", ec) ? dir : fs::path{};
}

// --torch: prepends the amdahl_torch directory to the child's PYTHONPATH (its sitecustomize
// patches torch when the script imports it). Returns false when the package is missing.
bool add_torch_env(std::map<std::string, std::string>& env_set) {
  const fs::path dir = torch_python_dir();
  if (dir.empty()) return false;
  const char* old = std::getenv("PYTHONPATH");
  env_set["PYTHONPATH"] = dir.string() + (old && *old ? ":" + std::string(old) : std::string());
  env_set["AMDAHL_TORCH"] = "1";
  return true;
}

// A collector this build made but that is not where amdahl looks stops `profile` before the
// command runs (a copied binary would otherwise run it unobserved and write an empty profile).
// A build without the NVTX headers has no collector; it still runs the command and says so.
void require_collectors(const fs::path& libdir, const fs::path& collector, [[maybe_unused]] const fs::path& cupti) {
  std::error_code ec;
  std::vector<std::string> missing;
#ifdef AMDAHL_BUILT_COLLECTOR
  if (!fs::exists(collector, ec)) missing.push_back(collector.filename().string());
#endif
#ifdef AMDAHL_BUILT_CUPTI
  if (!fs::exists(cupti, ec)) missing.push_back(cupti.filename().string());
#endif
  if (!missing.empty()) {
    std::string names = missing.front();
    if (missing.size() > 1) names += " and " + missing.back();
    throw CollectorMissing("cannot profile: the collector (" + names + ") is not in " +
                           (libdir.empty() ? std::string("<bindir>/../lib") : libdir.string()) +
                           "; run amdahl from its build or install tree (cmake --install BUILD --prefix P, "
                           "then P/bin/amdahl) or set AMDAHL_LIB_DIR to the directory that holds it");
  }
  if (!fs::exists(collector, ec))
    std::fprintf(stderr, "amdahl: warning: the collector %s is missing; the profile will have no ranges\n",
                 collector.c_str());
}

// --multicast-off: NVLink multicast (NVLS) off in NCCL, PyTorch's symmetric memory and NVSHMEM.
const std::map<std::string, std::string>& multicast_off_env() {
  static const std::map<std::string, std::string> env{
      {"NCCL_NVLS_ENABLE", "0"}, {"TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"}, {"NVSHMEM_DISABLE_NVLS", "1"}};
  return env;
}

std::string seconds(std::int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f s", static_cast<double>(ns) / 1e9);
  return buf;
}

void print_summary(const std::string& output, const RecordSet& rs, const LaunchResult& run) {
  // CUPTI's own overhead records are information, not problems: summed apart.
  auto informational = [&](const format::DiagRec& d) { return rs.str(d.key).rfind("cupti.overhead", 0) == 0; };
  std::uint64_t cupti_overhead_ns = 0;
  std::size_t problems = 0;
  for (const auto& d : rs.diagnostics) {
    if (!informational(d)) ++problems;
    else if (rs.str(d.key).rfind("cupti.overhead_ns.", 0) == 0) cupti_overhead_ns += d.count;
  }
  std::fprintf(stderr, "amdahl: profile written to %s\n", esc(output).c_str());
  std::fprintf(stderr,
               "amdahl:   %zu processes, %zu threads, %zu ranges, %zu marks, %zu GPU ops, %zu diagnostics\n",
               rs.processes.size(), rs.threads.size(), rs.ranges.size(), rs.marks.size(), rs.gpu_ops.size(),
               problems);
  if (cupti_overhead_ns > 0)
    std::fprintf(stderr, "amdahl:   CUPTI's own overhead records: %.1f ms in all\n", static_cast<double>(cupti_overhead_ns) / 1e6);
  std::size_t shown = 0;
  for (const auto& d : rs.diagnostics) {
    if (informational(d)) continue;
    if (shown++ == 5) {
      std::fprintf(stderr, "amdahl:     ... (%zu more; see the diagnostics_named view)\n", problems - 5);
      break;
    }
    // Keys and details come from the parts, i.e. from the profiled program: escaped.
    std::fprintf(stderr, "amdahl:     %s: %llu%s%s\n", esc(rs.str(d.key)).c_str(), static_cast<unsigned long long>(d.count),
                 d.detail ? " — " : "", esc(rs.str(d.detail)).c_str());
  }
  if (run.signal != 0)
    std::fprintf(stderr, "amdahl:   wall time %s; the command died of signal %d (exit code %d)\n",
                 seconds(run.end_ns - run.start_ns).c_str(), run.signal, run.exit_code);
  else
    std::fprintf(stderr, "amdahl:   wall time %s; the command exited with code %d\n",
                 seconds(run.end_ns - run.start_ns).c_str(), run.exit_code);
}

// Whether amdahl_torch annotated anything: its `torch.annotations:<route>` mark, once per
// process that imported torch.
void print_torch_summary(const RecordSet& rs) {
  std::vector<std::uint32_t> pids;
  for (const auto& m : rs.marks)
    if (rs.str(m.name).rfind("torch.annotations:", 0) == 0) pids.push_back(m.pid);
  std::sort(pids.begin(), pids.end());
  pids.erase(std::unique(pids.begin(), pids.end()), pids.end());
  if (pids.empty())
    std::fprintf(stderr, "amdahl:   PyTorch annotations: none recorded (torch was not imported, or no NVTX route: "
                         "AMDAHL_TORCH_VERBOSE=1 says why)\n");
  else
    std::fprintf(stderr, "amdahl:   PyTorch annotations: on in %zu process(es)\n", pids.size());
}

void save_run(const ProfileOptions& opt, const std::string& output, const RunSetup& setup, bool torch_ok,
              const LaunchResult& run, const PartDir& parts_dir);

int run_profile(const ProfileOptions& opt) {
  if (opt.command.empty()) throw UsageError("no command to profile: amdahl profile [-o FILE] -- COMMAND ARGS...");
  if (opt.torch && opt.no_torch) throw UsageError("--torch and --no-torch exclude each other");
  const std::string output = opt.output.empty() ? default_output(opt.command.front()) : opt.output;

  // Everything that can be refused is refused before the command runs.
  std::error_code ec;
  if (fs::is_directory(output, ec)) throw UsageError("cannot write the profile to " + output + ": it is a directory");
  check_output(output, {opt.stages, resolve_command(opt.command.front())});  // --force over an input
  check_profile_output(output);
  check_overwrite(output, opt.force);  // the one policy of every command (output_target.hpp)
  const fs::path out_dir = fs::path(output).parent_path();
  if (!out_dir.empty() && !fs::is_directory(out_dir, ec))
    throw UsageError("cannot write the profile to " + output + ": directory " + out_dir.string() + " does not exist");
  if (::access(out_dir.empty() ? "." : out_dir.c_str(), W_OK) != 0)
    throw UsageError("cannot write the profile to " + output + ": its directory is not writable");
  std::optional<std::string> stage_rules;
  if (!opt.stages.empty()) {
    try {
      stage_rules = read_rule_file(opt.stages);
    } catch (const format::InputFileError& e) {
      throw UsageError(e.what());  // before the run, like every other refused option
    }
    // Rules that do not parse would be saved and make every report of the profile fail: refused
    // now, before the command runs (analysis::UsageError: exit 1, "FILE:LINE: ...").
    analysis::parse_stage_rules(*stage_rules, opt.stages);
  }

  const fs::path libdir = library_dir();
  const fs::path collector = libdir / "libamdahl_collector.so";
  const fs::path cupti = libdir / "libamdahl_cupti.so";
  const bool have_collector = fs::exists(collector, ec);
  require_collectors(libdir, collector, cupti);

  if (opt.gpu_api != "launch" && opt.gpu_api != "all" && opt.gpu_api != "none")
    throw UsageError("--gpu-api must be launch, all or none (got '" + opt.gpu_api + "')");
  if (opt.gpu_steps && opt.gpu_sample) throw UsageError("--gpu-steps and --gpu-sample exclude each other: give one");
  const std::string schedule_arg = opt.gpu_steps    ? *opt.gpu_steps
                                   : opt.gpu_sample ? *opt.gpu_sample
                                                    : std::string(profiler::kDefaultGpuSample);
  const auto schedule = profiler::parse_gpu_schedule(schedule_arg);
  if (!schedule || (opt.gpu_steps && schedule->kind == profiler::ScheduleKind::Sample) ||
      (opt.gpu_sample && schedule->kind != profiler::ScheduleKind::Sample))
    throw UsageError(opt.gpu_sample ? "--gpu-sample must be K/M or K/M@SKIP with 0 < K < M, optionally ,P% (1 <= P <= 100), e.g. 10/200@20,2% (got '" +
                                          schedule_arg + "')"
                                    : "--gpu-steps must be all or FROM:TO with 0 <= FROM < TO, e.g. 20:70 (got '" +
                                          schedule_arg + "')");

  // From here on amdahl is not ended by a signal (SIGHUP, SIGUSR1, SIGPIPE, ... see
  // launcher.hpp): the command's exit status always comes back.
  SignalScope signals;
  PartDir parts_dir;
  std::map<std::string, std::string> env_set{{"AMDAHL_PART_DIR", parts_dir.path()}};
  env_set["AMDAHL_CUPTI_API"] = opt.gpu_api;
  env_set["AMDAHL_GPU_STEPS"] = profiler::schedule_text(*schedule);
  if (have_collector) env_set["NVTX_INJECTION64_PATH"] = collector.string();
  // The _exit hook (profiler/src/exit_hook.c): processes that leave through _exit (forked
  // Python workers) write their part too. AMDAHL_EXIT_HOOK=0 leaves LD_PRELOAD alone.
  const fs::path exit_hook = libdir / "libamdahl_exit.so";
  const char* hook_env = std::getenv("AMDAHL_EXIT_HOOK");
  if (have_collector && fs::exists(exit_hook, ec) && !(hook_env && std::string(hook_env) == "0")) {
    const char* old = std::getenv("LD_PRELOAD");
    env_set["LD_PRELOAD"] = exit_hook.string() + (old && *old ? ":" + std::string(old) : std::string());
  }
  if (fs::exists(cupti, ec)) env_set["CUDA_INJECTION64_PATH"] = cupti.string();
  // PyTorch annotation: asked for (--torch), or automatic for a Python command (docs/torch.md,
  // "Python commands"); amdahl_torch's hooks are placed only if the script imports torch.
  const char* path_env = std::getenv("PATH");
  const PythonCommand py = detect_python_command(opt.command, path_env ? path_env : "");
  const bool auto_torch = !opt.torch && !opt.no_torch && py.python;
  const bool want_torch = opt.torch || auto_torch;
  std::string torch_meta = opt.no_torch ? "off" : "";
  bool torch_ok = false;
  if (want_torch && !py.blocked.empty()) {
    torch_meta = "unavailable: " + py.blocked;
    std::fprintf(stderr, "amdahl: %s: %s: cannot annotate PyTorch: %s; the script runs unannotated\n",
                 opt.torch ? "warning" : "note", py.what.c_str(), py.blocked.c_str());
  } else if (want_torch) {
    torch_ok = add_torch_env(env_set);
    torch_meta = torch_ok ? env_set["PYTHONPATH"] : "missing";
    if (!torch_ok)
      std::fprintf(stderr, "amdahl: %s: %s: cannot annotate PyTorch: the amdahl_torch package (share/amdahl/python "
                           "next to the amdahl binary) is missing; the script runs unannotated\n",
                   opt.torch ? "warning" : "note", opt.torch ? "--torch" : py.what.c_str());
    else if (auto_torch)
      std::fprintf(stderr, "amdahl: %s: PyTorch annotation on, placed if the script imports torch (--no-torch "
                           "turns it off; docs/torch.md)\n", py.what.c_str());
  }
  // The command's environment is the user's: amdahl adds only its own variables (above). With
  // --multicast-off it also turns NVLink multicast off where the user has not decided
  // (docs/collector.md, "The command's environment"); what it set goes to meta command_env.
  std::map<std::string, std::string> env_default;
  std::string command_env;
  if (opt.multicast_off)
    for (const auto& [k, v] : multicast_off_env())
      if (std::getenv(k.c_str()) == nullptr) {
        env_default[k] = v;
        command_env += (command_env.empty() ? "" : " ") + k + "=" + v;
      }

  // A statically linked command cannot host the collector; the collector itself refuses to
  // run in it (elf_probe.hpp), and says so. The environment stays: the dynamically linked
  // programs a static one starts (a static busybox shell running python) are profiled.
  const std::string resolved = resolve_command(opt.command.front());
  const bool static_command =
      !resolved.empty() && profiler::file_linkage(resolved.c_str()) == profiler::Linkage::Static;

  const LaunchResult run = launch_and_wait(opt.command, env_set, env_default, signals);
  if (!run.started) {
    const std::string& cmd = opt.command.front();
    if (run.exec_errno == ENOENT && cmd.find('/') == std::string::npos)
      std::fprintf(stderr, "amdahl: error: %s: command not found\n", esc(cmd).c_str());
    else
      std::fprintf(stderr, "amdahl: error: cannot run %s: %s\n", esc(cmd).c_str(), std::strerror(run.exec_errno));
    return run.exit_code;
  }

  // Whatever happens to the profile now, the command's exit status is amdahl's.
  try {
    RunSetup setup;
    setup.command = opt.command;
    setup.gpu_schedule = profiler::schedule_text(*schedule);
    setup.collector = collector.string();
    setup.have_collector = have_collector;
    setup.resolved = resolved;
    setup.static_command = static_command;
    setup.stage_rules = stage_rules;
    setup.stage_rules_file = opt.stages;
    if (env_set.count("LD_PRELOAD")) setup.exit_hook = exit_hook.string();
    setup.torch_flag = opt.torch;
    setup.torch_meta = torch_meta;
    setup.want_torch = want_torch;
    setup.gpu_api = opt.gpu_api;
    setup.gpu_steps = opt.gpu_steps;
    setup.command_env = command_env;
    save_run(opt, output, setup, torch_ok, run, parts_dir);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "amdahl: error: no profile written: %s (the command exited with code %d, passed on)\n",
                 esc(e.what()).c_str(), run.exit_code);
  }
  return run.exit_code;
}

// Makes the profile of the finished run (launch/: the parts merged, diagnostics, meta), saves it
// and prints the summary.
void save_run(const ProfileOptions& opt, const std::string& output, const RunSetup& setup, bool torch_ok,
              const LaunchResult& run, const PartDir& parts_dir) {
  const format::Profile profile = launch::record_run(
      parts_dir.path(), setup, run, [](const std::string& warning) { print_line("warning: ", warning); });
  format::save_profile(profile, output, opt.force);
  print_summary(output, profile.records, run);
  if (torch_ok) print_torch_summary(profile.records);
}

}  // namespace

void register_profile_command(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<ProfileOptions>();
  CLI::App* sub = app.add_subcommand(
      "profile", "Run COMMAND with the collector injected and write its profile (.amdahl)");
  sub->add_option("-o,--output", opt->output,
                  "Profile to write (default: amdahl-<command>-<YYYYmmdd-HHMMSS>.amdahl here)");
  sub->add_flag("-f,--force", opt->force, "Overwrite the output file if it exists");
  sub->add_option("--stages", opt->stages, "Stage rules file (pattern -> stage), kept in the profile")
      ->check(CLI::ExistingFile);
  sub->add_flag("--torch", opt->torch,
                "Annotate a PyTorch script unchanged: DataLoader waits/workers, copies, forward/backward/"
                "optimizer, one step per optimizer step (docs/torch.md). On by default when COMMAND is a Python "
                "interpreter, launcher (torchrun, accelerate, deepspeed) or script");
  sub->add_flag("--no-torch", opt->no_torch, "Do not annotate PyTorch, not even for a Python command");
  sub->add_option("--gpu-api", opt->gpu_api,
                  "CUDA API calls that get a record: launch (default: launches, copies, sets, syncs, "
                  "stream/event order), all (every call; slowest), none (GPU ops only, not linked to stages)");
  sub->add_option("--gpu-steps", opt->gpu_steps,
                  "all: collect GPU activity throughout the run; FROM:TO: only from the start of step FROM to the "
                  "start of step TO (0-based `step` ranges, 0 <= FROM < TO). Host ranges are recorded throughout")
      ->check(checks::step_window());
  sub->add_option("--gpu-sample", opt->gpu_sample,
                  "K/M[@SKIP][,P%]: collect GPU activity for K steps of every M, from step SKIP on, the traced share of the run's time at most P% (default " +
                      std::string(profiler::kDefaultGpuSample) +
                      "), CUPTI detached between the windows; GPU figures come from the traced steps (docs/cupti.md)")
      ->check(checks::gpu_sample());
  sub->add_flag("--multicast-off", opt->multicast_off,
                "Turn NVLink multicast (NVLS) off for the command: set NCCL_NVLS_ENABLE=0, "
                "TORCH_SYMM_MEM_DISABLE_MULTICAST=1 and NVSHMEM_DISABLE_NVLS=1 where not already set (recorded in "
                "the profile's meta command_env). Off by default: the command's environment is left as it is, "
                "since multicast changes collective performance on NVSwitch machines (docs/collector.md)");
  sub->add_option("command", opt->command, "The command to run and its arguments (after --)");
  // From COMMAND on, every argument belongs to the command, options and "--" included (with or
  // without the separating "--").
  sub->positionals_at_end();
  sub->callback([opt, &exit_code] { exit_code = run_profile(*opt); });
}

}  // namespace amdahl::cli
