// fork/execvp of the profiled command with the collector's environment, signal forwarding
// while it runs, and the shell's exit-status conventions (127 not found, 126 not executable,
// 128+N for death by signal N). An exec failure is reported back through a close-on-exec pipe.
#include "launcher.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string_view>

namespace amdahl::cli {
namespace {

std::atomic<pid_t> g_child{0};

// SIGINT/SIGTERM for amdahl are passed on to the command. A terminal's Ctrl-C (si_code
// SI_KERNEL) already went to the whole foreground process group, the command included, so it
// is not sent a second time; a signal sent to amdahl alone (kill, SI_USER) is forwarded.
void forward_signal(int sig, siginfo_t* info, void*) {
  const pid_t child = g_child.load();
  if (child <= 0) return;
  if (info != nullptr && info->si_code == SI_KERNEL) return;
  ::kill(child, sig);
}

struct SignalGuard {
  struct sigaction old_int {}, old_term {};
  SignalGuard() {
    struct sigaction sa {};
    sa.sa_sigaction = forward_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGINT, &sa, &old_int);
    ::sigaction(SIGTERM, &sa, &old_term);
  }
  ~SignalGuard() {
    ::sigaction(SIGINT, &old_int, nullptr);
    ::sigaction(SIGTERM, &old_term, nullptr);
  }
  SignalGuard(const SignalGuard&) = delete;
  SignalGuard& operator=(const SignalGuard&) = delete;
};

}  // namespace

std::string resolve_command(const std::string& command) {
  if (command.find('/') != std::string::npos) return command;
  const char* path = std::getenv("PATH");
  const std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t begin = 0;
  for (;;) {
    const std::size_t end = dirs.find(':', begin);
    const std::string_view dir = std::string_view(dirs).substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    std::string candidate(dir.empty() ? std::string_view(".") : dir);  // an empty entry is the current directory
    candidate += '/';
    candidate += command;
    struct stat sb {};
    if (::stat(candidate.c_str(), &sb) == 0 && S_ISREG(sb.st_mode) && ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
    if (end == std::string::npos) return {};
    begin = end + 1;
  }
}

std::int64_t monotonic_ns() noexcept {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

LaunchResult launch_and_wait(const std::vector<std::string>& argv,
                             const std::map<std::string, std::string>& env_set,
                             const std::map<std::string, std::string>& env_default) {
  if (argv.empty()) throw std::invalid_argument("no command to run");
  // Everything the child needs is built before fork: after it, only async-signal-safe calls.
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::map<std::string, std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const char* eq = std::strchr(*e, '=');
    if (eq != nullptr) env.emplace(std::string(*e, static_cast<std::size_t>(eq - *e)), std::string(eq + 1));
  }
  for (const auto& [k, v] : env_default) env.try_emplace(k, v);
  for (const auto& [k, v] : env_set) env[k] = v;
  std::vector<std::string> env_strings;
  env_strings.reserve(env.size());
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);

  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));

  SignalGuard guard;
  LaunchResult r;
  r.start_ns = monotonic_ns();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int e = errno;
    ::close(pipefd[0]);
    ::close(pipefd[1]);
    throw std::runtime_error(std::string("fork: ") + std::strerror(e));
  }
  if (pid == 0) {
    ::close(pipefd[0]);
    // The child gets the dispositions amdahl itself was started with (ignored stays ignored).
    ::signal(SIGINT, guard.old_int.sa_handler == SIG_IGN ? SIG_IGN : SIG_DFL);
    ::signal(SIGTERM, guard.old_term.sa_handler == SIG_IGN ? SIG_IGN : SIG_DFL);
    ::execvpe(args[0], args.data(), envp.data());
    const int e = errno;
    ssize_t ignored = ::write(pipefd[1], &e, sizeof e);
    (void)ignored;
    ::_exit(e == ENOENT ? 127 : 126);
  }
  g_child.store(pid);
  ::close(pipefd[1]);
  int exec_errno = 0;
  ssize_t n;
  do {
    n = ::read(pipefd[0], &exec_errno, sizeof exec_errno);
  } while (n < 0 && errno == EINTR);
  ::close(pipefd[0]);

  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
  }
  g_child.store(0);
  r.end_ns = monotonic_ns();
  r.pid = static_cast<std::uint32_t>(pid);
  if (n == static_cast<ssize_t>(sizeof exec_errno)) {
    r.started = false;
    r.exec_errno = exec_errno;
    r.exit_code = exec_errno == ENOENT ? 127 : 126;
    return r;
  }
  r.started = true;
  if (WIFEXITED(status)) {
    r.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    r.signal = WTERMSIG(status);
    r.exit_code = 128 + r.signal;
  }
  return r;
}

}  // namespace amdahl::cli
