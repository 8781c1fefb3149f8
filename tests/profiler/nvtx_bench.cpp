// Micro-benchmark for the collector's hot path: N nvtxRangePushA/nvtxRangePop pairs on one
// thread (same name each time), printing nanoseconds per pair. Run it with and without
// NVTX_INJECTION64_PATH (scripts/bench_nvtx.sh).
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 10'000'000;
  nvtxRangePushA("warm-up");  // triggers NVTX initialisation outside the timed loop
  nvtxRangePop();
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < n; ++i) {
    nvtxRangePushA("bench-range");
    nvtxRangePop();
  }
  const auto t1 = std::chrono::steady_clock::now();
  const double ns = std::chrono::duration<double, std::nano>(t1 - t0).count();
  std::printf("%ld push/pop pairs: %.1f ns per pair\n", n, n > 0 ? ns / static_cast<double>(n) : 0.0);
  return 0;
}
