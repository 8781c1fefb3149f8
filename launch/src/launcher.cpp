// fork/execvp of the profiled command with the collector's environment, signals passed on to it
// exactly once while it runs, and the shell's exit-status conventions (127 not found, 126 not
// executable, 128+N for death by signal N). An exec failure is reported back through a
// close-on-exec pipe.
//
// Signals. The command runs in amdahl's process group (so it keeps the terminal, Ctrl-Z and
// job control work). A signal sent to that whole group (the terminal's Ctrl-C, a scheduler's or
// supervisor's `kill -- -PGID`, a shell hanging up its jobs) reaches the command by itself;
// passing on amdahl's copy would make it two, and a program that shuts down gracefully on the
// first is forced out by the second. A signal sent to amdahl alone (`kill PID`, `docker stop`)
// must be passed on. The two look the same to amdahl (si_code SI_USER, the sender's pid), so a
// watcher process in the group, which nobody signals by its pid, tells them apart: it blocks
// the signals and reports each one it gets. amdahl forwards a signal unless the terminal sent
// it (SI_KERNEL) or the watcher got the same signal from the same sender within
// kGroupWaitMs (then the command got it too, unless it left the group).
#include "amdahl/launch/launcher.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string_view>

namespace amdahl::launch {
namespace {

constexpr int kCaught[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
constexpr int kIgnored[] = {SIGPIPE, SIGXFSZ};
// How long a signal amdahl got waits for the watcher's report that the group got it too. The
// kernel delivers a group signal to every member in one call, so the report only waits for the
// watcher to be scheduled; past this, the signal is taken as sent to amdahl alone, unless the
// watcher has it pending still (/proc/PID/status: then the wait is extended, up to 5 s).
constexpr std::int64_t kGroupWaitMs = 200;

struct SigRecord {
  std::int32_t sig = 0;   // 0: the watcher's "ready"
  std::int32_t code = 0;  // si_code
  std::int32_t pid = 0;   // si_pid: the sender
};

int g_self_pipe[2] = {-1, -1};  // the handler's records, read by launch_and_wait
int g_scopes = 0;
int g_xfsz_was_ignored = -1;  // set by ignore_file_size_signal: SIGXFSZ's disposition at start

void on_signal(int sig, siginfo_t* info, void*) {
  const int saved = errno;
  const SigRecord r{sig, info != nullptr ? info->si_code : 0, info != nullptr ? info->si_pid : 0};
  if (g_self_pipe[1] >= 0) {
    const ssize_t n = ::write(g_self_pipe[1], &r, sizeof r);  // non-blocking: a full pipe drops it
    (void)n;
  }
  errno = saved;
}

sigset_t caught_set() {
  sigset_t s;
  sigemptyset(&s);
  for (int sig : kCaught) sigaddset(&s, sig);
  return s;
}

// The watcher: a fork of amdahl in its process group that blocks the caught signals, reads them
// from a signalfd and writes one SigRecord per signal to `reports`. It exits when amdahl closes
// the lifeline (or dies: PR_SET_PDEATHSIG). Its stdin/stdout/stderr are /dev/null, so it holds
// no pipe of whoever runs amdahl open. Only system calls after the fork.
struct Watcher {
  pid_t pid = -1;
  int reports = -1;   // read end
  int lifeline = -1;  // write end

  void start(const sigset_t& signals) {
    int rep[2], life[2];
    if (::pipe2(rep, O_CLOEXEC) != 0) return;
    if (::pipe2(life, O_CLOEXEC) != 0) {
      ::close(rep[0]);
      ::close(rep[1]);
      return;
    }
    const pid_t parent = ::getpid();
    const pid_t p = ::fork();
    if (p == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(0);
      // It keeps only its two pipe ends (as 3 and 4) and /dev/null as 0, 1, 2: no other
      // descriptor of amdahl's (the exec-error pipe, whatever amdahl's caller passed) stays open.
      const int rep_high = ::fcntl(rep[1], F_DUPFD, 10), life_high = ::fcntl(life[0], F_DUPFD, 10);
      if (rep_high < 0 || life_high < 0 || ::dup2(rep_high, 3) < 0 || ::dup2(life_high, 4) < 0) ::_exit(1);
      const int null = ::open("/dev/null", O_RDWR);
      if (null >= 0) {
        ::dup2(null, 0);
        ::dup2(null, 1);
        ::dup2(null, 2);
      }
      if (::close_range(5, ~0U, 0) != 0)
        for (int fd = 5; fd < 4096; ++fd) ::close(fd);
      rep[1] = 3;
      life[0] = 4;
      // The caught signals are blocked (amdahl blocked them around the fork): read them here.
      const int sfd = ::signalfd(-1, &signals, SFD_CLOEXEC);
      if (sfd < 0) ::_exit(1);
      const SigRecord ready{};
      if (::write(rep[1], &ready, sizeof ready) != sizeof ready) ::_exit(1);
      for (;;) {
        pollfd fds[2] = {{sfd, POLLIN, 0}, {life[0], POLLIN, 0}};
        if (::poll(fds, 2, -1) < 0) {
          if (errno == EINTR) continue;
          ::_exit(1);
        }
        if (fds[1].revents != 0) ::_exit(0);
        if ((fds[0].revents & POLLIN) != 0) {
          signalfd_siginfo si{};
          if (::read(sfd, &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
            const SigRecord r{static_cast<std::int32_t>(si.ssi_signo), si.ssi_code,
                              static_cast<std::int32_t>(si.ssi_pid)};
            if (::write(rep[1], &r, sizeof r) != sizeof r) ::_exit(1);
          }
        }
      }
    }
    ::close(rep[1]);
    ::close(life[0]);
    if (p < 0) {
      ::close(rep[0]);
      ::close(life[1]);
      return;
    }
    pid = p;
    reports = rep[0];
    lifeline = life[1];
    // Wait (briefly) for it to be listening, so a group signal from now on is seen by it.
    pollfd fd{reports, POLLIN, 0};
    SigRecord r;
    if (::poll(&fd, 1, 2000) <= 0 || ::read(reports, &r, sizeof r) != sizeof r || r.sig != 0) stop();
  }

  void stop() {
    if (lifeline >= 0) ::close(lifeline);
    if (reports >= 0) ::close(reports);
    lifeline = reports = -1;
    if (pid > 0) {
      while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
    pid = -1;
  }
};

// Reads the whole SigRecords waiting on a non-blocking (self pipe) or blocking (watcher)
// descriptor. Returns false at end of file (the watcher is gone).
template <class F>
bool drain(int fd, bool nonblocking, F&& each) {
  if (fd < 0) return true;
  for (;;) {
    if (!nonblocking) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 0) <= 0 || (p.revents & (POLLIN | POLLHUP)) == 0) return true;
    }
    SigRecord r;
    const ssize_t n = ::read(fd, &r, sizeof r);
    if (n == static_cast<ssize_t>(sizeof r)) {
      each(r);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n != 0;
  }
}

bool same(const SigRecord& a, const SigRecord& b) { return a.sig == b.sig && a.pid == b.pid; }

// Whether process `pid` has `sig` pending (SigPnd or ShdPnd of /proc/PID/status): the watcher
// got it but has not read it yet (not scheduled since: a loaded machine).
bool has_pending(pid_t pid, int sig) {
  if (pid <= 0) return false;
  std::FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/status").c_str(), "re");
  if (f == nullptr) return false;
  bool pending = false;
  char line[256];
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::strncmp(line, "SigPnd:", 7) != 0 && std::strncmp(line, "ShdPnd:", 7) != 0) continue;
    const unsigned long long mask = std::strtoull(line + 7, nullptr, 16);
    if (sig >= 1 && sig <= 64 && ((mask >> (sig - 1)) & 1ULL) != 0) pending = true;
  }
  std::fclose(f);
  return pending;
}

}  // namespace

SignalScope::SignalScope() {
  if (g_scopes++ > 0) throw std::logic_error("one SignalScope at a time");
  if (::pipe2(g_self_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
    g_self_pipe[0] = g_self_pipe[1] = -1;
    --g_scopes;
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  }
  struct sigaction sa {};
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for (int sig : kCaught) {
    saved_.push_back({sig, {}});
    ::sigaction(sig, &sa, &saved_.back().old);
  }
  sa.sa_flags |= SA_NOCLDSTOP;  // SIGCHLD only wakes the wait loop
  saved_.push_back({SIGCHLD, {}});
  ::sigaction(SIGCHLD, &sa, &saved_.back().old);
  struct sigaction ign {};
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  for (int sig : kIgnored) {
    saved_.push_back({sig, {}});
    ::sigaction(sig, &ign, &saved_.back().old);
  }
}

SignalScope::~SignalScope() {
  for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) ::sigaction(it->sig, &it->old, nullptr);
  ::close(g_self_pipe[0]);
  ::close(g_self_pipe[1]);
  g_self_pipe[0] = g_self_pipe[1] = -1;
  --g_scopes;
}

void ignore_file_size_signal() {
  struct sigaction ign {}, old {};
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  if (::sigaction(SIGXFSZ, &ign, &old) == 0 && g_xfsz_was_ignored < 0)
    g_xfsz_was_ignored = (old.sa_flags & SA_SIGINFO) == 0 && old.sa_handler == SIG_IGN ? 1 : 0;
}

bool SignalScope::was_ignored(int sig) const {
  if (sig == SIGXFSZ && g_xfsz_was_ignored >= 0) return g_xfsz_was_ignored == 1;
  for (const Saved& s : saved_)
    if (s.sig == sig) return (s.old.sa_flags & SA_SIGINFO) == 0 && s.old.sa_handler == SIG_IGN;
  return false;
}

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
                             const std::map<std::string, std::string>& env_default, const SignalScope& signals) {
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
  // The dispositions the command starts with: those amdahl was started with.
  std::vector<std::pair<int, bool>> child_dispositions;  // (signal, ignored)
  for (int sig : kCaught) child_dispositions.emplace_back(sig, signals.was_ignored(sig));
  for (int sig : kIgnored) child_dispositions.emplace_back(sig, signals.was_ignored(sig));
  child_dispositions.emplace_back(SIGCHLD, signals.was_ignored(SIGCHLD));

  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));

  // The caught signals are blocked across both forks: the watcher starts with them blocked (it
  // reads them from a signalfd), the child resets their handlers before it unblocks them (a
  // group signal arriving in between is then delivered to the command, as it should be).
  const sigset_t caught = caught_set();
  sigset_t old_mask;
  ::sigprocmask(SIG_BLOCK, &caught, &old_mask);
  Watcher watcher;
  watcher.start(caught);

  LaunchResult r;
  r.start_ns = monotonic_ns();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int e = errno;
    ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
    watcher.stop();
    ::close(pipefd[0]);
    ::close(pipefd[1]);
    throw std::runtime_error(std::string("fork: ") + std::strerror(e));
  }
  if (pid == 0) {
    ::close(pipefd[0]);
    for (const auto& [sig, ignored] : child_dispositions) ::signal(sig, ignored ? SIG_IGN : SIG_DFL);
    ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
    ::execvpe(args[0], args.data(), envp.data());
    const int e = errno;
    ssize_t ignored = ::write(pipefd[1], &e, sizeof e);
    (void)ignored;
    ::_exit(e == ENOENT ? 127 : 126);
  }
  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  ::close(pipefd[1]);
  int exec_errno = 0;
  ssize_t n;
  do {
    n = ::read(pipefd[0], &exec_errno, sizeof exec_errno);
  } while (n < 0 && errno == EINTR);
  ::close(pipefd[0]);

  // Wait for the child, passing signals on (see the top of this file).
  struct Pending {
    SigRecord rec;
    std::int64_t deadline_ns;
    int extensions = 0;
  };
  constexpr int kMaxExtensions = 25;  // 5 s at most for a watcher that is not scheduled
  std::vector<Pending> pending;         // amdahl got it; the watcher has not (yet)
  std::vector<Pending> watcher_seen;    // the watcher got it; amdahl has not (yet); deadline = expiry
  auto wait_ns = [&] { return watcher.reports >= 0 ? kGroupWaitMs * 1'000'000 : 0; };
  auto child_in_group = [&] { return ::getpgid(pid) == ::getpgrp(); };
  int status = 0;
  for (;;) {
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) {
      watcher.stop();
      throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
    }
    const std::int64_t now = monotonic_ns();
    drain(g_self_pipe[0], true, [&](const SigRecord& s) {
      if (s.sig == SIGCHLD) return;
      if (s.code == SI_KERNEL) {  // the terminal: it went to the whole foreground group
        ++r.not_forwarded;
        return;
      }
      for (auto it = watcher_seen.begin(); it != watcher_seen.end(); ++it)
        if (same(it->rec, s)) {
          watcher_seen.erase(it);
          if (child_in_group()) {
            ++r.not_forwarded;
            return;
          }
          pending.push_back({s, now});  // the command left the group: it did not get it
          return;
        }
      for (const Pending& p : pending)
        if (same(p.rec, s)) return;  // a second copy from the same sender (e.g. `timeout`)
      pending.push_back({s, now + wait_ns()});
    });
    const bool watcher_alive = drain(watcher.reports, false, [&](const SigRecord& s) {
      if (s.sig == 0) return;
      for (auto it = pending.begin(); it != pending.end(); ++it)
        if (same(it->rec, s)) {
          if (child_in_group()) {
            pending.erase(it);
            ++r.not_forwarded;
          }
          return;
        }
      watcher_seen.push_back({s, now + 2'000'000'000});
    });
    if (!watcher_alive) {  // it died: forward everything from now on, at once
      ::close(watcher.reports);
      watcher.reports = -1;
      for (Pending& p : pending) p.deadline_ns = now;
    }
    std::erase_if(watcher_seen, [&](const Pending& p) { return p.deadline_ns <= now; });
    std::int64_t next = now + 1'000'000'000;  // SIGCHLD wakes the poll; this bounds a lost one
    for (auto it = pending.begin(); it != pending.end();) {
      // Still unread by the watcher: it will report it (with its sender); give it the time.
      if (it->deadline_ns <= now && watcher.reports >= 0 && it->extensions < kMaxExtensions &&
          has_pending(watcher.pid, it->rec.sig)) {
        it->deadline_ns = now + wait_ns();
        ++it->extensions;
      }
      if (it->deadline_ns <= now) {
        ::kill(pid, it->rec.sig);
        ++r.forwarded;
        it = pending.erase(it);
      } else {
        next = std::min(next, it->deadline_ns);
        ++it;
      }
    }
    pollfd fds[2] = {{g_self_pipe[0], POLLIN, 0}, {watcher.reports, POLLIN, 0}};
    const int timeout_ms = static_cast<int>(std::max<std::int64_t>(1, (next - now + 999'999) / 1'000'000));
    ::poll(fds, watcher.reports >= 0 ? 2 : 1, timeout_ms);
  }
  watcher.stop();
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

}  // namespace amdahl::launch
