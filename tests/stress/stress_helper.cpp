// Stress helper for the collector (issue #8), instrumented with the nvtx3 C API. Modes:
//   threads T N     T threads, each N push/pop pairs (names from a set of 16), plus one mark per
//                   1000 ranges; prints "recorded R" (R = T*N) and exits 0
//   deep D          D nested push ranges, then D pops; exits 0
//   bigname MB      one range and one mark named with MB megabytes of 'x'; exits 0
//   nonutf8         ranges with invalid UTF-8 (ASCII API) and invalid code points (wide API)
//   pops P          P pops with no push (in two domains); exits 4
//   cross N         N start/end ranges started on one thread and ended on another
//   children C      forks C children (no exec); child i records 10 ranges "c<i>-<k>" and ends
//                   with exit(0) if i is even, _exit(0) after 200 ms if odd; exits 0 if all did
//   crash_threads T SIG  T threads record 20 000 ranges each, then idle; after 500 ms the main
//                   thread (one range left open) raises SIG
//                   (11 = a real segfault, 6 = abort(), 9 = SIGKILL to itself)
#include <nvtx3/nvToolsExt.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

const char* const kNames[16] = {"disk_io", "cpu_preprocess", "h2d", "gpu_compute", "d2h",
                                "communication", "step", "wait", "s8", "s9", "s10", "s11",
                                "s12", "s13", "s14", "s15"};

void sleep_ms(int ms) { ::usleep(static_cast<useconds_t>(ms) * 1000); }

// A real fault (not raise()), kept out of UBSan's reach so the sanitizer builds test the same.
[[noreturn]] __attribute__((no_sanitize("undefined"))) void segfault() {
  volatile int* p = nullptr;
  *p = 1;
  std::abort();  // not reached
}

int run_threads(int t, long n) {
  std::vector<std::thread> threads;
  for (int i = 0; i < t; ++i) {
    threads.emplace_back([n, i] {
      for (long k = 0; k < n; ++k) {
        nvtxRangePushA(kNames[(k + i) & 15]);
        nvtxRangePop();
        if (k % 1000 == 999) nvtxMarkA("tick");
      }
    });
  }
  for (auto& th : threads) th.join();
  std::printf("recorded %ld\n", static_cast<long>(t) * n);
  return 0;
}

int run_deep(int d) {
  for (int i = 0; i < d; ++i) nvtxRangePushA(kNames[i & 15]);
  for (int i = 0; i < d; ++i) nvtxRangePop();
  return 0;
}

int run_bigname(int mb) {
  const std::string name(static_cast<std::size_t>(mb) << 20, 'x');
  nvtxRangePushA(name.c_str());
  nvtxMarkA(name.c_str());
  nvtxRangePop();
  return 0;
}

int run_nonutf8() {
  nvtxRangePushA("bad-\xff\xfe-bytes");
  nvtxRangePop();
  nvtxRangePushA("truncated-\xe2\x82");
  nvtxRangePop();
  nvtxRangePushA("overlong-\xc0\xaf");
  nvtxRangePop();
  const wchar_t wide[] = {L'w', static_cast<wchar_t>(0xD800), static_cast<wchar_t>(0x110000),
                          L'!', 0};
  nvtxRangePushW(wide);
  nvtxRangePop();
  return 0;
}

int run_pops(int p) {
  nvtxDomainHandle_t d = nvtxDomainCreateA("amdahl");
  for (int i = 0; i < p; ++i) {
    nvtxRangePop();
    nvtxDomainRangePop(d);
  }
  nvtxRangePushA("after-pops");
  nvtxRangePop();
  return 4;
}

int run_cross(int n) {
  std::vector<nvtxRangeId_t> ids(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) ids[static_cast<std::size_t>(i)] = nvtxRangeStartA("cross");
  std::thread ender([&] {
    for (auto id : ids) nvtxRangeEnd(id);
  });
  ender.join();
  return 0;
}

int run_children(int c) {
  nvtxRangePushA("parent");
  nvtxRangePop();
  std::vector<pid_t> pids;
  for (int i = 0; i < c; ++i) {
    const pid_t pid = ::fork();
    if (pid < 0) return 99;
    if (pid == 0) {
      for (int k = 0; k < 10; ++k) {
        char name[32];
        std::snprintf(name, sizeof name, "c%d-%d", i, k);
        nvtxRangePushA(name);
        nvtxRangePop();
      }
      if (i % 2 == 0) std::exit(0);
      sleep_ms(200);
      ::_exit(0);
    }
    pids.push_back(pid);
  }
  int bad = 0;
  for (pid_t pid : pids) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++bad;
  }
  return bad == 0 ? 0 : 98;
}

int run_crash_threads(int t, int sig) {
  std::atomic<bool> go{true};
  std::vector<std::thread> threads;
  nvtxRangePushA("main-open");
  for (int i = 0; i < t; ++i) {
    threads.emplace_back([&go, i] {
      for (int k = 0; k < 20000; ++k) {
        nvtxRangePushA(kNames[i & 15]);
        nvtxRangePop();
      }
      while (go.load(std::memory_order_relaxed)) sleep_ms(1);
    });
  }
  sleep_ms(500);
  std::fflush(stdout);
  if (sig == SIGSEGV) segfault();
  if (sig == SIGABRT) std::abort();
  ::raise(sig);
  go = false;
  for (auto& th : threads) th.join();
  return 97;  // not reached for fatal signals
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  auto arg = [&](int i, long def) { return argc > i ? std::atol(argv[i]) : def; };
  // NVTX publishes its function table with plain stores: initialise it on this thread first.
  nvtxInitialize(nullptr);
  if (mode == "threads") return run_threads(static_cast<int>(arg(2, 8)), arg(3, 100000));
  if (mode == "deep") return run_deep(static_cast<int>(arg(2, 10000)));
  if (mode == "bigname") return run_bigname(static_cast<int>(arg(2, 1)));
  if (mode == "nonutf8") return run_nonutf8();
  if (mode == "pops") return run_pops(static_cast<int>(arg(2, 1000)));
  if (mode == "cross") return run_cross(static_cast<int>(arg(2, 1000)));
  if (mode == "children") return run_children(static_cast<int>(arg(2, 100)));
  if (mode == "crash_threads") {
    return run_crash_threads(static_cast<int>(arg(2, 8)), static_cast<int>(arg(3, SIGSEGV)));
  }
  std::fprintf(stderr, "usage: stress_helper MODE [ARGS]\n");
  return 2;
}
