// A CUDA program with known GPU work, run under `amdahl profile` by the CUPTI GPU tests:
//   timing       steps of: HtoD copies in `h2d`, 2 ms + 5 ms spin kernels in `gpu_compute`,
//                a DtoH copy in `d2h` (domain `amdahl`), each op timed with CUDA events
//   clock        host ranges enclosing a kernel launch + synchronize, with the host's own
//                CLOCK_MONOTONIC readings around them
//   reset        kernels, cudaDeviceReset, more kernels (with other names)
//   thread_exit  kernels on the main thread, then a second thread launches one more kernel
//                and calls exit(7) while the main thread blocks
// Writes what it measured as JSON to --json FILE. Exit 77 without a CUDA device.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

#define CHECK_CUDA(call)                                                                   \
  do {                                                                                     \
    cudaError_t err_ = (call);                                                             \
    if (err_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
      std::exit(3);                                                                        \
    }                                                                                      \
  } while (0)

__device__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Busy-waits `ns` nanoseconds of GPU time on one thread.
__global__ void spin_kernel(long long ns) {
  const unsigned long long t0 = global_ns();
  while (global_ns() - t0 < static_cast<unsigned long long>(ns)) {
  }
}
__global__ void spin_before_reset(long long ns) {
  const unsigned long long t0 = global_ns();
  while (global_ns() - t0 < static_cast<unsigned long long>(ns)) {
  }
}
__global__ void spin_after_reset(long long ns) {
  const unsigned long long t0 = global_ns();
  while (global_ns() - t0 < static_cast<unsigned long long>(ns)) {
  }
}

long long host_now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

nvtxDomainHandle_t domain() {
  static nvtxDomainHandle_t d = nvtxDomainCreateA("amdahl");
  return d;
}

void push(const char* name) {
  nvtxEventAttributes_t a;
  std::memset(&a, 0, sizeof a);
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = name;
  nvtxDomainRangePushEx(domain(), &a);
}
void pop() { nvtxDomainRangePop(domain()); }

float elapsed_ms(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
  return ms;
}

std::string ns_str(double ms) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f", ms * 1e6);
  return buf;
}

int run_timing(FILE* out, int steps) {
  const size_t h2d_bytes = 256u << 20, h2d_small = 16u << 20, d2h_bytes = 128u << 20;
  void *h_in = nullptr, *h_out = nullptr, *d_buf = nullptr;
  CHECK_CUDA(cudaMallocHost(&h_in, h2d_bytes));
  CHECK_CUDA(cudaMallocHost(&h_out, d2h_bytes));
  CHECK_CUDA(cudaMalloc(&d_buf, h2d_bytes));
  std::memset(h_in, 1, h2d_bytes);
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t ev[8];
  for (auto& e : ev) CHECK_CUDA(cudaEventCreate(&e));

  std::fprintf(out, "{\"mode\":\"timing\",\"steps\":[");
  for (int step = 0; step < steps; ++step) {
    const long long step_start = host_now_ns();
    push("step");
    push("h2d");
    CHECK_CUDA(cudaEventRecord(ev[0], s));
    CHECK_CUDA(cudaMemcpyAsync(d_buf, h_in, h2d_bytes, cudaMemcpyHostToDevice, s));
    CHECK_CUDA(cudaEventRecord(ev[1], s));
    CHECK_CUDA(cudaMemcpyAsync(d_buf, h_in, h2d_small, cudaMemcpyHostToDevice, s));
    CHECK_CUDA(cudaEventRecord(ev[2], s));
    CHECK_CUDA(cudaStreamSynchronize(s));
    pop();
    push("gpu_compute");
    CHECK_CUDA(cudaEventRecord(ev[3], s));
    spin_kernel<<<1, 1, 0, s>>>(2000000);
    CHECK_CUDA(cudaEventRecord(ev[4], s));
    spin_kernel<<<1, 1, 0, s>>>(5000000);
    CHECK_CUDA(cudaEventRecord(ev[5], s));
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaStreamSynchronize(s));
    pop();
    push("d2h");
    CHECK_CUDA(cudaEventRecord(ev[6], s));
    CHECK_CUDA(cudaMemcpyAsync(h_out, d_buf, d2h_bytes, cudaMemcpyDeviceToHost, s));
    CHECK_CUDA(cudaEventRecord(ev[7], s));
    CHECK_CUDA(cudaStreamSynchronize(s));
    pop();
    pop();  // step
    const long long step_end = host_now_ns();
    const double h2d = elapsed_ms(ev[0], ev[1]) + elapsed_ms(ev[1], ev[2]);
    const double compute = elapsed_ms(ev[3], ev[4]) + elapsed_ms(ev[4], ev[5]);
    const double d2h = elapsed_ms(ev[6], ev[7]);
    std::fprintf(out,
                 "%s{\"start_ns\":%lld,\"end_ns\":%lld,\"h2d_ns\":%s,\"gpu_compute_ns\":%s,\"d2h_ns\":%s,"
                 "\"h2d_ops\":2,\"gpu_compute_ops\":2,\"d2h_ops\":1,\"h2d_bytes\":%zu,\"d2h_bytes\":%zu}",
                 step ? "," : "", step_start, step_end, ns_str(h2d).c_str(), ns_str(compute).c_str(),
                 ns_str(d2h).c_str(), h2d_bytes + h2d_small, d2h_bytes);
  }
  std::fprintf(out, "]}\n");
  CHECK_CUDA(cudaFreeHost(h_in));
  CHECK_CUDA(cudaFreeHost(h_out));
  CHECK_CUDA(cudaFree(d_buf));
  return 0;
}

int run_clock(FILE* out, int iterations) {
  std::fprintf(out, "{\"mode\":\"clock\",\"iterations\":[");
  for (int i = 0; i < iterations; ++i) {
    const long long before = host_now_ns();
    push("gpu_compute");
    spin_kernel<<<1, 1>>>(3000000);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    pop();
    const long long after = host_now_ns();
    std::fprintf(out, "%s{\"before_ns\":%lld,\"after_ns\":%lld}", i ? "," : "", before, after);
  }
  std::fprintf(out, "]}\n");
  return 0;
}

int run_reset(FILE* out) {
  for (int i = 0; i < 3; ++i) spin_before_reset<<<1, 1>>>(1000000);
  CHECK_CUDA(cudaGetLastError());
  // No synchronize: cudaDeviceReset itself must not lose the in-flight kernels' records.
  CHECK_CUDA(cudaDeviceReset());
  for (int i = 0; i < 3; ++i) spin_after_reset<<<1, 1>>>(1000000);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  std::fprintf(out, "{\"mode\":\"reset\",\"before\":3,\"after\":3}\n");
  return 0;
}

[[noreturn]] int run_thread_exit(FILE* out) {
  for (int i = 0; i < 3; ++i) spin_kernel<<<1, 1>>>(1000000);
  CHECK_CUDA(cudaDeviceSynchronize());
  std::fprintf(out, "{\"mode\":\"thread_exit\",\"kernels\":4,\"exit_code\":7}\n");
  std::fclose(out);
  std::thread([] {
    CHECK_CUDA(cudaSetDevice(0));
    spin_kernel<<<1, 1>>>(5000000);  // still running when exit() starts
    std::exit(7);
  }).detach();
  for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = "timing", json;
  int count = 8;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--mode" && i + 1 < argc) mode = argv[++i];
    else if (a == "--json" && i + 1 < argc) json = argv[++i];
    else if (a == "--count" && i + 1 < argc) count = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: %s --mode timing|clock|reset|thread_exit --json FILE [--count N]\n", argv[0]);
      return 1;
    }
  }
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    std::printf("SKIPPED: no CUDA device\n");
    return 77;
  }
  FILE* out = json.empty() ? stdout : std::fopen(json.c_str(), "w");
  if (out == nullptr) {
    std::perror(json.c_str());
    return 1;
  }
  int rc = 1;
  if (mode == "timing") rc = run_timing(out, count);
  else if (mode == "clock") rc = run_clock(out, count);
  else if (mode == "reset") rc = run_reset(out);
  else if (mode == "thread_exit") run_thread_exit(out);
  else std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  if (out != stdout) std::fclose(out);
  return rc;
}
