// The profile of a finished `amdahl profile` run (recorded_run.hpp): the part folder, reading
// the parts (with a grace period for a part still being written), the launcher's diagnostics,
// the merge and the run's meta.
#include "amdahl/launch/recorded_run.hpp"

#include <limits.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "amdahl/format/input_file.hpp"
#include "amdahl/format/part_file.hpp"
#include "amdahl/format/profile_store.hpp"

namespace amdahl::launch {
namespace {

namespace fs = std::filesystem;
using format::RecordSet;
using format::StrId;

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string iso_utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string hostname() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

// The command line as a shell would need it typed (arguments with special characters quoted).
std::string quoted_command(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) {
    if (!out.empty()) out += ' ';
    const bool plain = !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                         "0123456789_-./=:,+@%") == std::string::npos;
    if (plain) {
      out += a;
      continue;
    }
    out += '\'';
    for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

StrId intern(RecordSet& rs, const std::string& s) {
  for (std::size_t i = 0; i < rs.strings.size(); ++i)
    if (rs.strings[i] == s) return static_cast<StrId>(i);
  rs.strings.push_back(s);
  return static_cast<StrId>(rs.strings.size() - 1);
}

struct Diag {
  std::uint32_t pid;
  std::string key;
  std::uint64_t count;
  std::string detail;
};

// The entries of `dir`; false (and `why`) when it cannot be listed (removed while the command ran).
bool list_dir(const std::string& dir, std::vector<fs::path>& out, std::string& why) {
  out.clear();
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) out.push_back(it->path());
  if (ec) why = ec.message();
  return !ec;
}

// The collector leaves `<part>.started` when a process records its first event: a marker
// whose part is missing is a process that recorded and wrote nothing (killed with SIGKILL, or
// by the OOM killer, before its first flush).
void lost_processes(const std::string& dir, std::vector<Diag>& diags) {
  std::vector<std::string> pids;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    const std::string suffix = ".amdpart.started";
    if (!ends_with(name, suffix)) continue;
    const std::string part = name.substr(0, name.size() - std::string(".started").size());
    if (fs::exists(fs::path(dir) / part, ec) || fs::exists(fs::path(dir) / (part + ".tmp"), ec)) continue;
    // part-<pid>-<start ns>.amdpart
    const std::size_t a = name.find('-'), b = name.find('-', a + 1);
    pids.push_back(a != std::string::npos && b != std::string::npos ? name.substr(a + 1, b - a - 1) : name);
  }
  if (pids.empty()) return;
  std::sort(pids.begin(), pids.end());
  std::string list;
  for (std::size_t i = 0; i < pids.size() && i < 20; ++i) list += (i ? ", " : "") + pids[i];
  if (pids.size() > 20) list += ", ...";
  diags.push_back({0, "launcher.lost_processes", pids.size(),
                   std::to_string(pids.size()) + " process(es) started recording and wrote no records (ended before "
                   "their first flush without an exit the collector sees, e.g. SIGKILL): pid " + list});
}

// Reads every complete part (`*.amdpart`) in `dir`. A part still being written (`.tmp`) gets a
// short grace period (a child may be writing at exit); unreadable parts become diagnostics, and
// so does a part directory that is gone (the command or someone removed it).
std::vector<RecordSet> read_parts(const std::string& dir, std::vector<Diag>& diags,
                                  const std::function<void(const std::string&)>& on_warning) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  std::vector<fs::path> files;
  std::string why;
  for (;;) {
    if (!list_dir(dir, files, why)) {
      diags.push_back({0, "launcher.part_dir_unreadable", 1,
                       "the part directory " + dir + " could not be read after the command ran (" + why +
                           "): every part is lost"});
      return {};
    }
    bool pending = false;
    for (const fs::path& f : files) pending = pending || ends_with(f.filename().string(), ".amdpart.tmp");
    if (!pending || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::sort(files.begin(), files.end());
  std::vector<RecordSet> parts;
  std::vector<std::string> odd;  // FIFOs, devices, sockets, folders, links: never opened
  for (const fs::path& f : files) {
    const std::string name = f.filename().string();
    if (!format::is_regular_file_entry(f.string())) {
      odd.push_back(name);
    } else if (ends_with(name, ".amdpart.tmp")) {
      diags.push_back({0, "part.incomplete", 1, name + ": the process was still writing its part when amdahl read the parts"});
    } else if (ends_with(name, ".amdpart")) {
      try {
        parts.push_back(format::read_part(f.string()));
      } catch (const format::PartError& e) {
        // Rejected whole (a corrupt record would make the saved profile unreadable); the others are kept.
        diags.push_back({0, "part.unreadable", 1, name + ": " + e.what()});
        if (on_warning) on_warning("part " + name + " rejected, its process is missing from the profile: " + e.what());
      }
    }
  }
  if (!odd.empty()) {
    std::string list;
    for (std::size_t i = 0; i < odd.size() && i < 5; ++i) list += (i ? ", " : "") + odd[i];
    if (odd.size() > 5) list += ", ...";
    diags.push_back({0, "part.not_regular_file", odd.size(),
                     std::to_string(odd.size()) + " entry(ies) of the part directory are not regular files and were "
                     "skipped unopened (" + list + ")"});
  }
  lost_processes(dir, diags);
  return parts;
}

}  // namespace

PartDir::PartDir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/amdahl-parts-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr)
    throw std::runtime_error("cannot create a temporary directory for the parts (" + tmpl + ")");
  path_ = tmpl;
}

PartDir::~PartDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

format::Profile record_run(const std::string& part_dir, const RunSetup& setup, const LaunchResult& run,
                           const std::function<void(const std::string&)>& on_warning) {
  const bool have_collector = setup.have_collector;
  const std::optional<std::string>& stage_rules = setup.stage_rules;
  std::error_code ec;
  std::vector<Diag> diags;
  std::vector<RecordSet> parts = read_parts(part_dir, diags, on_warning);
  format::Profile profile;
  const std::size_t n_parts = parts.size();
  profile.records = format::merge_parts(std::move(parts));
  RecordSet& rs = profile.records;
  bool main_part = false;
  for (const auto& p : rs.processes) main_part = main_part || p.pid == run.pid;
  if (!have_collector) {
    diags.push_back({0, "launcher.no_collector", 1, "collector not found at " + setup.collector});
  } else if (!main_part && setup.static_command) {
    diags.push_back({run.pid, "launcher.static_command", 1,
                     setup.resolved + " is statically linked: the collector cannot run inside it, so the command's own "
                                "process ran unobserved (programs it started that are dynamically linked are profiled)"});
  } else if (!main_part) {
    diags.push_back({run.pid, "launcher.missing_part", 1,
                     "no part from the command's process (pid " + std::to_string(run.pid) + ")" +
                         (run.signal ? "; it died of signal " + std::to_string(run.signal) + " before writing one"
                                     : "; the collector was not loaded (no NVTX use, or a static binary?)")});
  }
  if (setup.torch_meta == "missing")
    diags.push_back({0, "launcher.no_torch_package", 1,
                     std::string(setup.torch_flag ? "--torch" : "PyTorch annotation") +
                         ": share/amdahl/python/sitecustomize.py not found"});
  for (const Diag& d : diags) rs.diagnostics.push_back({d.pid, intern(rs, d.key), d.count, intern(rs, d.detail)});

  auto& meta = profile.meta;
  meta["command"] = quoted_command(setup.command);
  meta["host"] = hostname();
  meta["clock"] = "CLOCK_MONOTONIC";
  meta["created"] = iso_utc_now();
  meta["exit_code"] = std::to_string(run.exit_code);
  if (run.signal != 0) meta["exit_signal"] = std::to_string(run.signal);
  meta["pid"] = std::to_string(run.pid);
  meta["start_ns"] = std::to_string(run.start_ns);
  meta["end_ns"] = std::to_string(run.end_ns);
  meta["wall_ns"] = std::to_string(run.end_ns - run.start_ns);
  meta["parts"] = std::to_string(n_parts);
  meta["cwd"] = fs::current_path(ec).string();
  if (have_collector) meta["collector"] = setup.collector;
  meta["exit_hook"] = setup.exit_hook;
  if (!setup.torch_meta.empty()) meta["torch"] = setup.torch_meta;
  if (setup.want_torch) meta["torch_enabled_by"] = setup.torch_flag ? "--torch" : "python command";
  meta["gpu_api"] = setup.gpu_api;
  if (setup.gpu_steps) meta["gpu_steps"] = *setup.gpu_steps;
  meta["gpu_schedule"] = setup.gpu_schedule;  // docs/profile-format.md: all, FROM:TO or K/M@SKIP
  if (!setup.command_env.empty()) meta["command_env"] = setup.command_env;
  if (stage_rules) {
    meta["stage_rules"] = *stage_rules;
    meta["stage_rules_file"] = setup.stage_rules_file;
  }
  return profile;
}

}  // namespace amdahl::launch
