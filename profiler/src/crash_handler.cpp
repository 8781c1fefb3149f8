// Fatal-signal handlers: on SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGABRT the part is written
// with what was recorded ("collector.crash_signal" = N), on SIGTERM, SIGINT or SIGHUP likewise
// ("collector.term_signal" = N), then the previous disposition is restored and the signal
// re-raised, so the process dies exactly as it would have (same signal, same exit status, core
// dump if enabled).
//
// Trade-off: writing a part allocates and does file IO, which is not async-signal-safe. If the
// crashed thread holds a collector lock, the write is skipped (try-locks; the last flushed part
// stays). If it holds a lock of the C library (a crash inside malloc), the write could block
// forever: an alarm() of AMDAHL_CRASH_WRITE_S seconds (default 10) bounds it, its handler
// re-raises the original signal. Handlers are installed only where the host has none (checked
// with sigaction at load); a host that installs its own later simply replaces them.
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "collector_config.hpp"
#include "collector_state.hpp"

namespace amdahl::profiler::detail {
namespace {

// The faults, abort, and the signals that end a process by default when sent to it: SIGTERM
// (a parent's terminate(): multiprocessing, PyTorch's DataLoader shutdown, a job scheduler),
// SIGINT (Ctrl-C of a C or C++ program; Python installs its own handler first) and SIGHUP.
constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT, SIGHUP};
constexpr int kNumSignals = sizeof(kSignals) / sizeof(kSignals[0]);

struct sigaction g_previous[kNumSignals];
bool g_installed[kNumSignals] = {};
struct sigaction g_previous_alarm;
unsigned g_write_limit_s = 10;
volatile sig_atomic_t g_crash_signal = 0;
volatile sig_atomic_t g_in_crash = 0;

int slot_of(int sig) noexcept {
  for (int i = 0; i < kNumSignals; ++i) {
    if (kSignals[i] == sig) return i;
  }
  return -1;
}

// Restores the previous disposition of `sig` and re-raises it (delivered when the handler
// returns and the signal is unblocked; a fault re-executes and faults again under it).
void restore_and_raise(int sig) noexcept {
  const int i = slot_of(sig);
  if (i >= 0 && g_installed[i]) {
    ::sigaction(sig, &g_previous[i], nullptr);
  } else {
    ::signal(sig, SIG_DFL);
  }
  ::raise(sig);
}

// The write took too long (probably blocked on a C library lock the crashed thread holds).
void on_alarm(int) noexcept {
  const int sig = g_crash_signal;
  ::sigaction(SIGALRM, &g_previous_alarm, nullptr);
  if (sig == 0) return;
  const int i = slot_of(sig);
  if (i >= 0) ::sigaction(sig, &g_previous[i], nullptr);
  // Unblock it: this may run on the crashed thread, inside the handler that blocks it.
  sigset_t set;
  ::sigemptyset(&set);
  ::sigaddset(&set, sig);
  ::pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  ::raise(sig);
  ::_exit(128 + sig);  // not reached unless the previous disposition ignores it
}

void on_fatal_signal(int sig) noexcept {
  const int saved_errno = errno;
  if (g_in_crash == 0) {  // a second crash (another thread, or inside the write) skips the write
    g_in_crash = 1;
    g_crash_signal = sig;
    if (g_write_limit_s > 0) {
      struct sigaction sa {};
      sa.sa_handler = on_alarm;
      ::sigemptyset(&sa.sa_mask);
      ::sigaction(SIGALRM, &sa, &g_previous_alarm);
      ::alarm(g_write_limit_s);
    }
    write_part(WriteKind::Crash, sig);
    if (g_write_limit_s > 0) {
      ::alarm(0);
      ::sigaction(SIGALRM, &g_previous_alarm, nullptr);
    }
  }
  errno = saved_errno;
  restore_and_raise(sig);
}

}  // namespace

void install_crash_handlers() noexcept {
  const CollectorConfig& cfg = collector_config();
  if (!cfg.crash_handlers) return;
  g_write_limit_s = cfg.crash_write_s;
  for (int i = 0; i < kNumSignals; ++i) {
    struct sigaction current {};
    if (::sigaction(kSignals[i], nullptr, &current) != 0) continue;
    const bool host_has_one = (current.sa_flags & SA_SIGINFO) != 0 || current.sa_handler != SIG_DFL;
    if (host_has_one) continue;  // the host's handler (or SIG_IGN) stays
    struct sigaction sa {};
    sa.sa_handler = on_fatal_signal;
    ::sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_ONSTACK;  // uses the thread's alternate stack if the host set one
    g_previous[i] = current;
    if (::sigaction(kSignals[i], &sa, nullptr) == 0) g_installed[i] = true;
  }
}

}  // namespace amdahl::profiler::detail
