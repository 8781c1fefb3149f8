// What `amdahl profile` makes of a finished run: the private folder the collector writes its
// parts into, and the profile from those parts (read, merged, the launcher's diagnostics and the
// run's meta added). Saving it and printing the summary are the CLI's (cli/src/profile_command.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "amdahl/format/profile.hpp"
#include "amdahl/launch/launcher.hpp"

namespace amdahl::launch {

// The private directory the collector writes parts into ($TMPDIR, else /tmp); removed with
// everything in it. Throws std::runtime_error when it cannot be made.
class PartDir {
 public:
  PartDir();
  const std::string& path() const { return path_; }
  ~PartDir();
  PartDir(const PartDir&) = delete;
  PartDir& operator=(const PartDir&) = delete;

 private:
  std::string path_;
};

// What the launcher knew before the command ran, for the profile's diagnostics and meta.
struct RunSetup {
  std::vector<std::string> command;  // as given (meta command, quoted)
  std::string collector;             // the collector library's path
  bool have_collector = false;
  std::string resolved;              // the file the command ran (resolve_command)
  bool static_command = false;       // statically linked (cannot host the collector)
  bool torch_flag = false;           // --torch was given (else annotation was automatic, if on)
  bool want_torch = false;           // --torch, or automatic for a Python command
  std::string torch_meta;            // meta "torch": PYTHONPATH, "missing", "off", "unavailable: ..."
  std::string exit_hook = "off";     // the preloaded exit hook library, or "off"
  std::string gpu_api = "launch";    // meta gpu_api
  std::optional<std::string> gpu_steps;  // meta gpu_steps, when given
  std::string gpu_schedule;          // meta "gpu_schedule": when CUPTI traced (gpu_schedule.hpp)
  std::string command_env;           // meta "command_env": variables set for the command beyond amdahl's own
  std::optional<std::string> stage_rules;  // the --stages file's text
  std::string stage_rules_file;            // and its path
};

// The profile of a run: every complete part in `part_dir` merged (format::merge_parts), the
// launcher's diagnostics (parts unreadable, incomplete or not regular files, processes lost,
// no part from the command, no collector, no torch package) and the run's meta. `on_warning`
// gets one line per rejected part as it is read (the CLI prints it).
format::Profile record_run(const std::string& part_dir, const RunSetup& setup, const LaunchResult& run,
                           const std::function<void(const std::string&)>& on_warning = {});

}  // namespace amdahl::launch
