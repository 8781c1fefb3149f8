// Global average pooling kernels (NHWC in, fp32 [N, C] out) and their backward.
#include "amdahl/dnn/pooling.hpp"

#include "device_math.cuh"

namespace amdahl::dnn {
namespace {
using namespace detail;

// grid (ceil(C / 256), N); each thread sums one channel over H*W (loads coalesced over c).
template <class T>
__global__ void avgpool_fwd_kernel(const T* x, float* y, int hw, int c) {
  const int ch = blockIdx.x * blockDim.x + threadIdx.x;
  if (ch >= c) return;
  const std::size_t base = static_cast<std::size_t>(blockIdx.y) * hw * c + ch;
  float s = 0.f;
  for (int p = 0; p < hw; ++p) s += to_f(x[base + static_cast<std::size_t>(p) * c]);
  y[static_cast<std::size_t>(blockIdx.y) * c + ch] = s / static_cast<float>(hw);
}

template <class T>
__global__ void avgpool_bwd_kernel(const float* dy, T* dx, std::size_t total, int hw, int c) {
  const float inv = 1.f / static_cast<float>(hw);
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < total;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const std::size_t ch = i % static_cast<std::size_t>(c);
    const std::size_t n = i / (static_cast<std::size_t>(hw) * c);
    dx[i] = from_f<T>(dy[n * c + ch] * inv);
  }
}

}  // namespace

void global_avgpool_forward(Context& ctx, Shape4 in, const void* x, float* y) {
  const dim3 grid((in.c + 255) / 256, in.n);
  dispatch(ctx.act_type(), [&](auto tag) {
    using T = decltype(tag);
    avgpool_fwd_kernel<T><<<grid, 256, 0, ctx.stream()>>>(static_cast<const T*>(x), y,
                                                         in.h * in.w, in.c);
  });
  AMDAHL_CHECK_LAUNCH();
}

void global_avgpool_backward(Context& ctx, Shape4 in, const float* dy, void* dx) {
  const std::size_t total = in.count();
  dispatch(ctx.act_type(), [&](auto tag) {
    using T = decltype(tag);
    avgpool_bwd_kernel<T><<<grid_for(total), 256, 0, ctx.stream()>>>(
        dy, static_cast<T*>(dx), total, in.h * in.w, in.c);
  });
  AMDAHL_CHECK_LAUNCH();
}

}  // namespace amdahl::dnn
