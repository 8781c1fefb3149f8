// Running the profiled command for `amdahl profile`: fork + execvp (no shell), an environment
// with the collector injected, SIGINT/SIGTERM forwarded to the child, and the exit status
// mapped the way a shell maps it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace amdahl::cli {

struct LaunchResult {
  bool started = false;      // false: exec failed (see exec_errno), nothing ran
  int exec_errno = 0;
  std::uint32_t pid = 0;     // the child's pid
  int exit_code = 0;         // the command's exit code, 128+N when it died of signal N,
                             // 127 (not found) / 126 (not executable) when exec failed
  int signal = 0;            // N when it died of signal N, else 0
  std::int64_t start_ns = 0; // CLOCK_MONOTONIC just before fork
  std::int64_t end_ns = 0;   // CLOCK_MONOTONIC after the child was reaped
};

// Runs argv[0] (searched in PATH like a shell) with `env_set` added to the environment, and
// `env_default` added only where the variable is not already set. Waits for it.
LaunchResult launch_and_wait(const std::vector<std::string>& argv,
                             const std::map<std::string, std::string>& env_set,
                             const std::map<std::string, std::string>& env_default);

// The file execvp would run for `command`: itself when it has a '/', else the first executable
// regular file of that name in PATH ("" when there is none).
std::string resolve_command(const std::string& command);

// CLOCK_MONOTONIC in nanoseconds (the collector's clock).
std::int64_t monotonic_ns() noexcept;

}  // namespace amdahl::cli
