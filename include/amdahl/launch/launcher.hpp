// Running the profiled command for `amdahl profile`: fork + execvp (no shell), an environment
// with the collector injected, signals passed on to the child exactly once, and the exit status
// mapped the way a shell maps it.
#pragma once

#include <signal.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace amdahl::launch {

struct LaunchResult {
  bool started = false;      // false: exec failed (see exec_errno), nothing ran
  int exec_errno = 0;
  std::uint32_t pid = 0;     // the child's pid
  int exit_code = 0;         // the command's exit code, 128+N when it died of signal N,
                             // 127 (not found) / 126 (not executable) when exec failed
  int signal = 0;            // N when it died of signal N, else 0
  std::int64_t start_ns = 0; // CLOCK_MONOTONIC just before fork
  std::int64_t end_ns = 0;   // CLOCK_MONOTONIC after the child was reaped
  int forwarded = 0;         // signals amdahl passed on to the command
  int not_forwarded = 0;     // signals the command had already been sent (group, terminal)
};

// While it lives, amdahl itself is not ended by the signals a profile run can meet, so that
// the command's exit status always comes back: SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and
// SIGUSR2 are caught (passed on to the command while it runs, see launch_and_wait), SIGPIPE
// (stderr closed) and SIGXFSZ (file size limit: the write fails instead) are ignored. The
// command gets the dispositions amdahl was started with. One per process, for the whole
// `amdahl profile` (the merge and the save after the command ended included).
class SignalScope {
 public:
  SignalScope();
  ~SignalScope();
  SignalScope(const SignalScope&) = delete;
  SignalScope& operator=(const SignalScope&) = delete;

  // Whether amdahl was started with `sig` ignored (the command then starts with it ignored).
  bool was_ignored(int sig) const;

 private:
  struct Saved {
    int sig;
    struct sigaction old;
  };
  std::vector<Saved> saved_;
};

// Runs argv[0] (searched in PATH like a shell) with `env_set` added to the environment, and
// `env_default` added only where the variable is not already set. Waits for it. Needs a live
// SignalScope. A signal amdahl gets while the command runs is passed on to the command unless
// the command was sent it too: by the terminal (Ctrl-C, hang-up: the whole foreground process
// group) or by a kill of amdahl's process group (schedulers, supervisors, `kill -- -PGID`),
// which a watcher process in the group detects (docs/reliability.md, Signals).
LaunchResult launch_and_wait(const std::vector<std::string>& argv,
                             const std::map<std::string, std::string>& env_set,
                             const std::map<std::string, std::string>& env_default, const SignalScope& signals);

// Called first in main: amdahl ignores SIGXFSZ, so that a file size limit (as good as a full
// disk) makes a write fail with EFBIG, reported in one line with the old output left intact,
// instead of killing amdahl halfway. A profiled command still starts with the disposition
// amdahl was started with.
void ignore_file_size_signal();

// The file execvp would run for `command`: itself when it has a '/', else the first executable
// regular file of that name in PATH ("" when there is none).
std::string resolve_command(const std::string& command);

// CLOCK_MONOTONIC in nanoseconds (the collector's clock).
std::int64_t monotonic_ns() noexcept;

}  // namespace amdahl::launch
