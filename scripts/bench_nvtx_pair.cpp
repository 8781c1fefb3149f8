// Overhead benchmark helper (scripts/bench_overhead.sh): the cost of one NVTX push/pop pair,
// (a) nvtxRangePushA/nvtxRangePop in the default domain and (b) nvtxDomainRangePushEx with a
// registered string in domain `amdahl` (the recommended form). Run with and without
// NVTX_INJECTION64_PATH. Prints "default: X ns/pair" and "amdahl_registered: Y ns/pair", then
// "clock: Z ns/call" (clock_gettime(CLOCK_MONOTONIC), which the collector calls once per push
// and once per pop: the floor of a recorded pair is twice that).
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

int main(int argc, char** argv) {
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
  return 0;
}
