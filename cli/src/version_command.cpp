// `amdahl --version` and `amdahl version`: the release, the profile format this amdahl writes
// and the oldest it reads, the JSON schema version of its JSON outputs, and the git commit it
// was built from (when known at build time).
#include <cstdio>
#include <string>

#include "amdahl/format/profile_store.hpp"
#include "build_info.hpp"
#include "commands.hpp"

namespace amdahl::cli {

// The lines, without the last newline (CLI11 adds it for --version).
std::string version_text() {
  const std::string commit = build_info::kGitCommit;
  return std::string("amdahl ") + build_info::kVersion + "\nprofile format " +
         std::to_string(format::kProfileFormatVersion) + " (writes " +
         std::to_string(format::kProfileFormatVersion) + ", reads " +
         std::to_string(format::kOldestProfileFormatVersion) + " to " +
         std::to_string(format::kProfileFormatVersion) + ")\njson schema " + std::to_string(kJsonSchemaVersion) +
         "\ncommit " + (commit == "unknown" ? "unknown (not built from a git checkout)" : commit);
}

void register_version_command(CLI::App& app, int& exit_code) {
  app.set_version_flag("--version", version_text(), "print the version of amdahl and of its formats, then exit");
  CLI::App* cmd = app.add_subcommand("version", "print the version of amdahl and of its formats");
  cmd->callback([&exit_code] {
    std::puts(version_text().c_str());
    exit_code = 0;
  });
}

}  // namespace amdahl::cli
