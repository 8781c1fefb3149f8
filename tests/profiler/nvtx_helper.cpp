// Test helper instrumented with the nvtx3 C API. Modes:
//   full   ranges in two domains (nested), a start/end range ended on another thread, marks
//          with every payload type, a registered string, category names, named OS threads,
//          an unbalanced pop, an unknown range end and unclosed ranges; prints "helper done"
//          and exits with code 3.
//   fork   forks one child that keeps running this image and one that execs "<self> child",
//          while a second thread keeps interning new names (stressing the fork lock handling).
//   child  a few ranges of its own (the exec'd child).
//   cpu    ranges for the per-range CPU times: in domain amdahl ~50 ms busy loops (busy-0,
//          busy-1, ...: at least three, more while preemption kept the thread's CPU time
//          below 90% of the wall time, up to 20), a 50 ms sleep (sleep), a range while a second thread burns 40 ms of
//          CPU (contended), nested amdahl ranges around a range of another domain
//          (outer-stage > inner-other > inner-stage, popped outer-stage first); busy loops in
//          domain other (other-busy) and the default domain (default-busy), an amdahl
//          start/end range (async-amdahl) and an amdahl push never popped (unclosed-amdahl).
//          For each of those push/pop ranges it prints "<name> <thread cpu ns> <process cpu ns>
//          <wall ns>", as the helper itself measured them just outside the push and the pop,
//          then "cpu done".
//   spill N  N nvtxRangePushA/Pop pairs inside one open range, as fast as they go; prints the
//          resident memory before and the peak after (the spill test's memory bound).
//   faults N  N nvtxRangePushA/Pop pairs in bursts of 1000 with a 1 ms sleep between, then
//          "minflt F" (this thread's minor page faults over the loop, getrusage(RUSAGE_THREAD)):
//          with the collector's look-ahead on, the pages of the record buffers are faulted in
//          by its prefaulter thread, not here.
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace {

std::uint32_t gettid_u32() { return static_cast<std::uint32_t>(::syscall(SYS_gettid)); }

nvtxEventAttributes_t attrs(const char* msg) {
  nvtxEventAttributes_t a{};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = msg;
  return a;
}

int run_full() {
  pthread_setname_np(pthread_self(), "helper-main");
  nvtxDomainHandle_t amdahl = nvtxDomainCreateA("amdahl");
  nvtxDomainHandle_t other = nvtxDomainCreateA("other");
  nvtxNameCategoryA(7, "io-cat");
  nvtxDomainNameCategoryA(amdahl, 3, "stage-cat");
  nvtxStringHandle_t reg = nvtxDomainRegisterStringA(amdahl, "registered-name");

  nvtxRangePushA("outer");  // depth 0, default domain
  {
    nvtxEventAttributes_t a{};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = reg;
    a.category = 3;
    a.payloadType = NVTX_PAYLOAD_TYPE_INT64;
    a.payload.llValue = 42;
    nvtxDomainRangePushEx(amdahl, &a);  // depth 1, parent outer
    nvtxEventAttributes_t b = attrs("inner-b");
    b.payloadType = NVTX_PAYLOAD_TYPE_DOUBLE;
    b.payload.dValue = 2.5;
    nvtxDomainRangePushEx(other, &b);  // depth 2, parent registered-name
    nvtxDomainRangePop(other);
    nvtxDomainRangePop(amdahl);
    nvtxRangePushW(L"wide-\u00e9");  // depth 1, parent outer
    nvtxRangePop();
  }
  nvtxRangePop();

  // Marks with every payload type.
  nvtxEventAttributes_t m = attrs("produce");
  m.payloadType = NVTX_PAYLOAD_TYPE_INT64;
  m.payload.llValue = 17;
  nvtxDomainMarkEx(amdahl, &m);
  m = attrs("consume");
  m.payloadType = NVTX_PAYLOAD_TYPE_DOUBLE;
  m.payload.dValue = 0.5;
  nvtxDomainMarkEx(amdahl, &m);
  m = attrs("u32");
  m.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT32;
  m.payload.uiValue = 5;
  nvtxMarkEx(&m);
  m = attrs("i32");
  m.payloadType = NVTX_PAYLOAD_TYPE_INT32;
  m.payload.iValue = -3;
  m.category = 7;
  nvtxMarkEx(&m);
  m = attrs("f32");
  m.payloadType = NVTX_PAYLOAD_TYPE_FLOAT;
  m.payload.fValue = 1.5f;
  nvtxMarkEx(&m);
  m = attrs("u64");
  m.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
  m.payload.ullValue = 0xFFFFFFFFFFFFFFFFull;
  nvtxMarkEx(&m);
  nvtxMarkA("plain-mark");

  // A start/end range ended on another thread, which also has its own push/pop range.
  nvtxEventAttributes_t s = attrs("async");
  nvtxRangeId_t id = nvtxDomainRangeStartEx(amdahl, &s);
  std::uint32_t worker_tid = 0;
  std::thread worker([&] {
    pthread_setname_np(pthread_self(), "wk-comm");
    worker_tid = gettid_u32();
    nvtxNameOsThreadA(worker_tid, "worker-named");
    nvtxRangePushA("worker-range");
    nvtxDomainRangeEnd(amdahl, id);
    nvtxRangePop();
  });
  worker.join();

  // Problems that must be counted, never fatal.
  nvtxRangePop();                  // unbalanced (default domain)
  nvtxDomainRangePop(other);       // unbalanced (domain "other")
  nvtxRangeEnd(12345);             // unknown id
  nvtxDomainRangeEnd(amdahl, id);  // ended twice: unknown
  nvtxRangePushA("never-popped");
  nvtxRangeStartA("never-ended");

  std::printf("helper done\n");
  std::fflush(stdout);
  return 3;
}

std::int64_t clock_ns(clockid_t c) {
  timespec ts{};
  ::clock_gettime(c, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// Burns CPU on this thread for `ms` milliseconds of wall time.
void spin_wall(int ms) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  volatile std::uint64_t x = 0;
  while (std::chrono::steady_clock::now() < end) {
    for (int i = 0; i < 1000; ++i) x = x + static_cast<std::uint64_t>(i);
  }
}

// Busy-waits `us` microseconds of wall time.
void spin_wall_us(int us) {
  const std::int64_t end = clock_ns(CLOCK_MONOTONIC) + std::int64_t{us} * 1000;
  while (clock_ns(CLOCK_MONOTONIC) < end) {
  }
}

// Burns `ms` milliseconds of this thread's own CPU time (however long that takes).
void spin_cpu(int ms) {
  const std::int64_t end = clock_ns(CLOCK_THREAD_CPUTIME_ID) + std::int64_t{ms} * 1'000'000;
  volatile std::uint64_t x = 0;
  while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < end) {
    for (int i = 0; i < 1000; ++i) x = x + static_cast<std::uint64_t>(i);
  }
}

// A push/pop range in domain d around body(), printing the CPU times measured around it;
// returns the thread's CPU time over wall time.
template <class Body>
double measured(nvtxDomainHandle_t d, const char* name, Body body) {
  const std::int64_t w0 = clock_ns(CLOCK_MONOTONIC);
  const std::int64_t t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  const std::int64_t p0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
  nvtxEventAttributes_t a = attrs(name);
  nvtxDomainRangePushEx(d, &a);
  body();
  nvtxDomainRangePop(d);
  const std::int64_t t1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  const std::int64_t p1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
  const std::int64_t w1 = clock_ns(CLOCK_MONOTONIC);
  std::printf("%s %lld %lld %lld\n", name, static_cast<long long>(t1 - t0), static_cast<long long>(p1 - p0),
              static_cast<long long>(w1 - w0));
  return static_cast<double>(t1 - t0) / static_cast<double>(w1 > w0 ? w1 - w0 : 1);
}

int run_cpu() {
  nvtxDomainHandle_t amdahl = nvtxDomainCreateA("amdahl");
  nvtxDomainHandle_t other = nvtxDomainCreateA("other");
  nvtxRangePushA("warm-up");  // NVTX and the collector initialised before anything is timed
  nvtxRangePop();
  double best = 0.0;
  for (int i = 0; i < 20 && (i < 3 || best < 0.9); ++i) {
    const std::string name = "busy-" + std::to_string(i);
    best = std::max(best, measured(amdahl, name.c_str(), [] { spin_wall(50); }));
  }
  measured(amdahl, "sleep", [] {
    const timespec ms50{0, 50'000'000};
    ::nanosleep(&ms50, nullptr);
  });
  measured(amdahl, "contended", [] {
    std::thread burner([] { spin_cpu(40); });
    burner.join();
  });
  measured(other, "other-busy", [] { spin_wall(20); });
  measured(nullptr, "default-busy", [] { spin_wall(10); });

  nvtxEventAttributes_t o = attrs("outer-stage");
  nvtxDomainRangePushEx(amdahl, &o);
  spin_wall(10);
  nvtxEventAttributes_t io = attrs("inner-other");
  nvtxDomainRangePushEx(other, &io);
  nvtxEventAttributes_t is = attrs("inner-stage");
  nvtxDomainRangePushEx(amdahl, &is);
  spin_wall(10);
  nvtxDomainRangePop(amdahl);  // inner-stage
  nvtxDomainRangePop(amdahl);  // outer-stage, while inner-other (domain other) is still open
  spin_wall(5);
  nvtxDomainRangePop(other);  // inner-other

  nvtxEventAttributes_t s = attrs("async-amdahl");
  const nvtxRangeId_t id = nvtxDomainRangeStartEx(amdahl, &s);
  spin_wall(5);
  nvtxDomainRangeEnd(amdahl, id);
  nvtxEventAttributes_t u = attrs("unclosed-amdahl");
  nvtxDomainRangePushEx(amdahl, &u);
  spin_wall(5);
  std::printf("cpu done\n");
  std::fflush(stdout);
  return 0;
}

int run_child() {
  nvtxRangePushA("child-exec");
  nvtxRangePop();
  return 0;
}

int run_fork(const char* self) {
  // Load and initialise the collector on this thread before the second thread starts (NVTX
  // publishes its function table without atomics, which ThreadSanitizer would report).
  nvtxRangePushA("parent-range");
  nvtxRangePop();
  std::atomic<bool> stop{false};
  std::thread churn([&] {
    // Keeps the interning lock busy with new names while the main thread forks.
    for (unsigned i = 0; !stop.load(); ++i) {
      const std::string name = "churn-" + std::to_string(i % 4096);
      nvtxRangePushA(name.c_str());
      nvtxRangePop();
    }
  });
  nvtxRangePushA("around-fork");  // open across both forks

  const pid_t a = ::fork();
  if (a == 0) {
    nvtxRangePushA("child-noexec");
    nvtxRangePop();
    nvtxRangePop();  // closes the inherited "around-fork": balanced, not recorded
    std::exit(0);
  }
  const pid_t b = ::fork();
  if (b == 0) {
    char* const argv[] = {const_cast<char*>(self), const_cast<char*>("child"), nullptr};
    ::execv(self, argv);
    ::_exit(127);
  }
  int sa = 0;
  int sb = 0;
  ::waitpid(a, &sa, 0);
  ::waitpid(b, &sb, 0);
  nvtxRangePop();  // around-fork
  stop.store(true);
  churn.join();
  std::printf("children %d %d\n", static_cast<int>(a), static_cast<int>(b));
  const bool ok = WIFEXITED(sa) && WEXITSTATUS(sa) == 0 && WIFEXITED(sb) && WEXITSTATUS(sb) == 0;
  return ok ? 0 : 1;
}

int run_faults(long n) {
  nvtxRangePushA("warm-up");
  nvtxRangePop();
  rusage before{};
  ::getrusage(RUSAGE_THREAD, &before);
  for (long i = 0; i < n; ++i) {
    nvtxRangePushA("fault-range");
    nvtxRangePop();
    if (i % 1000 == 999) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  rusage after{};
  ::getrusage(RUSAGE_THREAD, &after);
  std::printf("minflt %ld\n", after.ru_minflt - before.ru_minflt);
  return 0;
}

// `bracket MS`: for MS milliseconds, push/pop ranges "br-<i>" and marks "bm-<i>", each between
// two CLOCK_MONOTONIC reads the helper prints ("br-<i> W0 W1"): the recorded times (clock ticks
// converted at write time) must lie between them. Ranges are a mix of short and ~0.2 ms long.
int run_bracket(long ms) {
  nvtxRangePushA("warm-up");
  nvtxRangePop();
  const std::int64_t end = clock_ns(CLOCK_MONOTONIC) + ms * 1'000'000;
  for (long i = 0; clock_ns(CLOCK_MONOTONIC) < end; ++i) {
    const std::string r = "br-" + std::to_string(i);
    const std::string m = "bm-" + std::to_string(i);
    const std::int64_t w0 = clock_ns(CLOCK_MONOTONIC);
    nvtxRangePushA(r.c_str());
    if (i % 2 == 1) spin_wall_us(200);
    nvtxRangePop();
    nvtxMarkA(m.c_str());
    const std::int64_t w1 = clock_ns(CLOCK_MONOTONIC);
    std::printf("%s %lld %lld\n", r.c_str(), static_cast<long long>(w0), static_cast<long long>(w1));
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  std::printf("bracket done\n");
  return 0;
}

// A field of /proc/self/status in kB ("VmRSS", "VmHWM"), -1 if missing.
long status_kb(const char* field) {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return -1;
  char line[256];
  long kb = -1;
  const std::size_t n = std::strlen(field);
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::strncmp(line, field, n) == 0 && line[n] == ':') kb = std::atol(line + n + 1);
  }
  std::fclose(f);
  return kb;
}

// `spill N`: inside one range "outer" (open throughout, so its pop writes into the oldest
// records' pages), N push/pop pairs named sp-a and sp-b in turn, as fast as they go. Prints
// "rss_before_kb R" and "hwm_kb H" (this process's resident memory before the loop and its peak
// after it): past a small AMDAHL_MEMORY_BUDGET_MB the records spill, and their pages must not
// stay resident.
int run_spill(long n) {
  nvtxRangePushA("warm-up");
  nvtxRangePop();
  std::printf("rss_before_kb %ld\n", status_kb("VmRSS"));
  nvtxRangePushA("outer");
  for (long i = 0; i < n; ++i) {
    nvtxRangePushA(i % 2 == 0 ? "sp-a" : "sp-b");
    nvtxRangePop();
  }
  nvtxRangePop();
  std::printf("hwm_kb %ld\n", status_kb("VmHWM"));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "full";
  if (std::strcmp(mode, "full") == 0) return run_full();
  if (std::strcmp(mode, "fork") == 0) return run_fork(argv[0]);
  if (std::strcmp(mode, "child") == 0) return run_child();
  if (std::strcmp(mode, "cpu") == 0) return run_cpu();
  if (std::strcmp(mode, "faults") == 0 && argc > 2) return run_faults(std::atol(argv[2]));
  if (std::strcmp(mode, "bracket") == 0 && argc > 2) return run_bracket(std::atol(argv[2]));
  if (std::strcmp(mode, "spill") == 0 && argc > 2) return run_spill(std::atol(argv[2]));
  std::fprintf(stderr, "usage: nvtx_helper [full|fork|child|cpu|faults N|bracket MS|spill N]\n");
  return 2;
}
