// Overhead benchmark helper (scripts/bench_overhead.sh): the cost of one kernel launch. Launches
// an empty kernel N times (default 100000) on one stream after a warm-up, then synchronizes;
// prints the host time per launch of the launch loop alone and of loop + synchronize. Run
// unprofiled and under `amdahl profile` (CUPTI on).
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

__global__ void empty_kernel() {}

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 100000;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("SKIPPED: no CUDA device\n");
    return 77;
  }
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  for (int i = 0; i < 2000; ++i) empty_kernel<<<1, 1, 0, s>>>();
  cudaStreamSynchronize(s);
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < n; ++i) empty_kernel<<<1, 1, 0, s>>>();
  const auto t1 = std::chrono::steady_clock::now();
  cudaStreamSynchronize(s);
  const auto t2 = std::chrono::steady_clock::now();
  if (cudaGetLastError() != cudaSuccess) {
    std::fprintf(stderr, "launch failed\n");
    return 3;
  }
  std::printf("launch: %.1f ns/launch (loop), %.1f ns/launch (loop+sync)\n",
              std::chrono::duration<double, std::nano>(t1 - t0).count() / n,
              std::chrono::duration<double, std::nano>(t2 - t0).count() / n);
  return 0;
}
