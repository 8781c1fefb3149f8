// Test helper for the collector's crash survival: records a few NVTX ranges, then ends in a
// way that skips exit handlers. Modes (argv[1]):
//   exit_after_flush  ranges "r0".."r9", waits for the flusher's part (AMDAHL_FLUSH_MS > 0), _exit(0)
//   exit_now          the same ranges, _exit(0) at once (nothing flushed with the flusher off)
//   segv              ranges, one left open ("open-at-crash"), then a write through a null pointer
//   abort             ranges, one left open, then abort()
//   host_handler      installs its own SIGSEGV handler (prints "host handler", _exit(42)) before
//                     the first NVTX call, records ranges, then segfaults
//   fork_exit         waits for its own flushed part, forks (no exec) a child that records
//                     "child-r0".."child-r4", waits for its own flushed part and _exit(5)s; the
//                     parent records "parent-r", waits, exits with the child's code + 10
//   fork_kill         the same up to the child's wait; the child then tells the parent through a
//                     pipe and sleeps; the parent SIGKILLs it, records "parent-r" and exits 0
//   exit_code N       ranges, then exit(N) through the normal path
//   term              ranges, one left open ("open-at-term"), then SIGTERM to itself
//   vfork_exit        ranges, then a vfork child that _exit(3)s at once (it shares the parent's
//                     memory: the exit hook must not write there); the parent records
//                     "parent-r" and exits with the child's code + 10
// "Waits for its flushed part": with AMDAHL_FLUSH_MS > 0, until part-<pid>-*.amdpart is in
// AMDAHL_PART_DIR (at most 30 s); with the flusher off, not at all. A fixed sleep was not enough:
// the flusher's interval grows with the cost of a write (20x), and under ASan writes are slow.
#include <nvtx3/nvToolsExt.h>
#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
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

// Whether AMDAHL_PART_DIR holds a finished part of this process (part-<pid>-<ns>.amdpart; the
// writer renames a finished file into that name, so one that exists is whole).
bool own_part_exists() {
  const char* dir = std::getenv("AMDAHL_PART_DIR");
  if (dir == nullptr || *dir == '\0') return false;
  const std::string prefix = "part-" + std::to_string(::getpid()) + "-";
  const std::string suffix = ".amdpart";
  bool found = false;
  if (DIR* d = ::opendir(dir)) {
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name.size() > prefix.size() + suffix.size() && name.compare(0, prefix.size(), prefix) == 0 &&
          name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
        found = true;
        break;
      }
    }
    ::closedir(d);
  }
  return found;
}

// "Waits for its flushed part" of the modes above; after 30 s it gives up and the test reading
// the parts says what is missing.
void wait_for_flushed_part() {
  const char* ms = std::getenv("AMDAHL_FLUSH_MS");
  if (ms == nullptr || std::atoi(ms) <= 0) return;
  for (int i = 0; i < 3000 && !own_part_exists(); ++i) sleep_ms(10);
}

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
    wait_for_flushed_part();
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
    // The first NVTX call started the flusher thread; fork only once it has written (then it
    // sleeps). Forking while it still starts up left, under ASan (GCC 12's allocator has no
    // fork handler), an allocator lock held in the child, where the child's own flusher then
    // waited forever. glibc's malloc is fork-safe; this is about the sanitizer builds.
    wait_for_flushed_part();
    int ready[2];
    if (::pipe(ready) != 0) return 99;
    const pid_t pid = ::fork();
    if (pid < 0) return 99;
    if (pid == 0) {
      ::close(ready[0]);
      ranges("child-r", 5);
      wait_for_flushed_part();
      if (mode == "fork_exit") ::_exit(5);
      (void)!::write(ready[1], "r", 1);
      for (;;) ::pause();
    }
    ::close(ready[1]);
    if (mode == "fork_kill") {
      char byte = 0;
      while (::read(ready[0], &byte, 1) < 0 && errno == EINTR) {
      }
      ::kill(pid, SIGKILL);
    }
    ::close(ready[0]);
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
