// Micro-benchmark for the collector's hot path: N push/pop pairs on one thread (same name each
// time), printing nanoseconds per pair. Without DOMAIN: nvtxRangePushA/nvtxRangePop (default
// domain); with DOMAIN: nvtxDomainRangePushEx/nvtxDomainRangePop in that domain (an ASCII
// message, no payload), e.g. `amdahl` (whose push/pop ranges also read the CPU clocks) or any
// other name. Run it with and without NVTX_INJECTION64_PATH (scripts/bench_nvtx.sh).
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 10'000'000;
  const char* domain_name = argc > 2 ? argv[2] : nullptr;
  nvtxRangePushA("warm-up");  // triggers NVTX initialisation outside the timed loop
  nvtxRangePop();
  nvtxDomainHandle_t domain = domain_name != nullptr ? nvtxDomainCreateA(domain_name) : nullptr;
  nvtxEventAttributes_t a{};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = "bench-range";
  const auto t0 = std::chrono::steady_clock::now();
  if (domain_name == nullptr) {
    for (long i = 0; i < n; ++i) {
      nvtxRangePushA("bench-range");
      nvtxRangePop();
    }
  } else {
    for (long i = 0; i < n; ++i) {
      nvtxDomainRangePushEx(domain, &a);
      nvtxDomainRangePop(domain);
    }
  }
  const auto t1 = std::chrono::steady_clock::now();
  const double ns = std::chrono::duration<double, std::nano>(t1 - t0).count();
  std::printf("%ld push/pop pairs: %.1f ns per pair\n", n, n > 0 ? ns / static_cast<double>(n) : 0.0);
  return 0;
}
