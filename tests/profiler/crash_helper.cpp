// Test helper for the collector's crash survival: records a few NVTX ranges, then ends in a
// way that skips exit handlers. Modes (argv[1]):
//   exit_after_flush  ranges "r0".."r9", sleeps 200 ms (longer than AMDAHL_FLUSH_MS=50), _exit(0)
//   exit_now          the same ranges, _exit(0) at once (nothing flushed with the flusher off)
//   segv              ranges, one left open ("open-at-crash"), then a write through a null pointer
//   abort             ranges, one left open, then abort()
//   host_handler      installs its own SIGSEGV handler (prints "host handler", _exit(42)) before
//                     the first NVTX call, records ranges, then segfaults
//   fork_exit         forks (no exec) a child that records "child-r0".."child-r4", sleeps 200 ms
//                     and _exit(5)s; the parent records "parent-r", waits, exits with the
//                     child's code + 10
//   fork_kill         forks a child that records "child-r0".."child-r4", sleeps; the parent
//                     waits 300 ms, SIGKILLs it, records "parent-r" and exits 0
//   exit_code N       ranges, then exit(N) through the normal path
//   term              ranges, one left open ("open-at-term"), then SIGTERM to itself
//   vfork_exit        ranges, then a vfork child that _exit(3)s at once (it shares the parent's
//                     memory: the exit hook must not write there); the parent records
//                     "parent-r" and exits with the child's code + 10
#include <nvtx3/nvToolsExt.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

void ranges(const char* prefix, int n) {
  for (int i = 0; i < n; ++i) {
    const std::string name = std::string(prefix) + std::to_string(i);
    nvtxRangePushA(name.c_str());
    nvtxRangePop();
  }
}

void sleep_ms(int ms) { ::usleep(static_cast<useconds_t>(ms) * 1000); }

void on_host_segv(int) {
  const char msg[] = "host handler\n";
  (void)!::write(1, msg, sizeof msg - 1);
  ::_exit(42);
}

// A real fault (not raise()), kept out of UBSan's reach so the sanitizer builds test the same.
[[noreturn]] __attribute__((no_sanitize("undefined"))) void segfault() {
  volatile int* p = nullptr;
  *p = 1;
  std::abort();  // not reached
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "exit_after_flush") {
    ranges("r", 10);
    sleep_ms(200);
    ::_exit(0);
  }
  if (mode == "exit_now") {
    ranges("r", 10);
    ::_exit(0);
  }
  if (mode == "segv" || mode == "abort") {
    ranges("r", 10);
    nvtxRangePushA("open-at-crash");
    std::fflush(stdout);
    if (mode == "segv") segfault();
    std::abort();
  }
  if (mode == "host_handler") {
    struct sigaction sa {};
    sa.sa_handler = on_host_segv;
    ::sigemptyset(&sa.sa_mask);
    ::sigaction(SIGSEGV, &sa, nullptr);
    ranges("r", 10);
    segfault();
  }
  if (mode == "fork_exit" || mode == "fork_kill") {
    nvtxRangePushA("parent-before-fork");
    nvtxRangePop();
    const pid_t pid = ::fork();
    if (pid < 0) return 99;
    if (pid == 0) {
      ranges("child-r", 5);
      if (mode == "fork_exit") {
        sleep_ms(200);
        ::_exit(5);
      }
      for (;;) ::pause();
    }
    if (mode == "fork_kill") {
      sleep_ms(300);
      ::kill(pid, SIGKILL);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    nvtxRangePushA("parent-r");
    nvtxRangePop();
    if (mode == "fork_kill") return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ? 0 : 98;
    return WIFEXITED(status) ? WEXITSTATUS(status) + 10 : 97;
  }
  if (mode == "term") {
    ranges("r", 10);
    nvtxRangePushA("open-at-term");
    std::fflush(stdout);
    ::kill(::getpid(), SIGTERM);
    for (;;) ::pause();
  }
  if (mode == "vfork_exit") {
    ranges("r", 10);
    const pid_t pid = ::vfork();
    if (pid < 0) return 99;
    if (pid == 0) ::_exit(3);
    int status = 0;
    ::waitpid(pid, &status, 0);
    nvtxRangePushA("parent-r");
    nvtxRangePop();
    return WIFEXITED(status) ? WEXITSTATUS(status) + 10 : 97;
  }
  if (mode == "exit_code" && argc > 2) {
    ranges("r", 10);
    std::exit(std::atoi(argv[2]));
  }
  std::fprintf(stderr, "usage: crash_helper MODE\n");
  return 2;
}
