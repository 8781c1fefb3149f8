// Overhead benchmark helper (scripts/bench_overhead.sh): the cost of one NVTX push/pop pair,
// (a) nvtxRangePushA/nvtxRangePop in the default domain and (b) nvtxDomainRangePushEx with a
// registered string in domain `amdahl` (the recommended form). Run with and without
// NVTX_INJECTION64_PATH. Prints "default: X ns/pair" and "amdahl_registered: Y ns/pair", then
// "clock: Z ns/call" (clock_gettime(CLOCK_MONOTONIC), what the collector read once per push
// and once per pop before issue 20) and "rdtsc: W ns/call" (what it reads now where the TSC is
// invariant). Built into build/bin by CMake (tests/profiler/CMakeLists.txt) for
// scripts/bench_nvtx.sh.
// `bench_nvtx_pair stress N`: N nvtxRangePushA/nvtxRangePop pairs (8 names in turn), then
// "loop_s: X" (the pairs) and "main_s: Y" (main's start to its return): the process's wall time
// beyond main_s is the exit delay (the collector's final part write).
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int stress(long n) {
  const auto t_main = std::chrono::steady_clock::now();
  static const char* const kNames[8] = {"disk_io", "cpu_preprocess", "h2d", "gpu_compute",
                                        "d2h", "communication", "wait", "optimizer"};
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < n; ++i) {
    nvtxRangePushA(kNames[i & 7]);
    nvtxRangePop();
  }
  std::printf("loop_s: %.3f\n", seconds_since(t0));
  std::printf("main_s: %.3f\n", seconds_since(t_main));
  std::fflush(stdout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2 && std::strcmp(argv[1], "stress") == 0) return stress(std::atol(argv[2]));
  const long n = argc > 1 ? std::atol(argv[1]) : 5'000'000;
  nvtxDomainHandle_t dom = nvtxDomainCreateA("amdahl");
  nvtxStringHandle_t name = nvtxDomainRegisterStringA(dom, "gpu_compute");
  nvtxEventAttributes_t a;
  std::memset(&a, 0, sizeof a);
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  a.message.registered = name;
  nvtxRangePushA("warm-up");
  nvtxRangePop();

  auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < n; ++i) {
    nvtxRangePushA("bench-range");
    nvtxRangePop();
  }
  auto t1 = std::chrono::steady_clock::now();
  std::printf("default: %.1f ns/pair\n", std::chrono::duration<double, std::nano>(t1 - t0).count() / n);

  t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < n; ++i) {
    nvtxDomainRangePushEx(dom, &a);
    nvtxDomainRangePop(dom);
  }
  t1 = std::chrono::steady_clock::now();
  std::printf("amdahl_registered: %.1f ns/pair\n", std::chrono::duration<double, std::nano>(t1 - t0).count() / n);
  timespec ts{};
  long long sink = 0;
  t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < n; ++i) {
    clock_gettime(CLOCK_MONOTONIC, &ts);
    sink += ts.tv_nsec;
  }
  t1 = std::chrono::steady_clock::now();
  std::printf("clock: %.1f ns/call (%lld)\n", std::chrono::duration<double, std::nano>(t1 - t0).count() / n, sink & 1);
#if defined(__x86_64__)
  unsigned long long tsc_sink = 0;
  t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < n; ++i) tsc_sink += __rdtsc();
  t1 = std::chrono::steady_clock::now();
  std::printf("rdtsc: %.1f ns/call (%llu)\n", std::chrono::duration<double, std::nano>(t1 - t0).count() / n, tsc_sink & 1);
#endif
  return 0;
}
