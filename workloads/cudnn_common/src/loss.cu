// Softmax cross-entropy kernel: one block per row, block reductions for max and sum of exp.
#include "amdahl/dnn/loss.hpp"

#include "device_math.cuh"

#include <cfloat>

namespace amdahl::dnn {
namespace {

constexpr int kBlock = 256;

template <class Op>
__device__ float block_reduce(float v, float* shared, Op op) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int o = 16; o > 0; o /= 2) v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  v = shared[0];
  for (int i = 1; i < kBlock / 32; ++i) v = op(v, shared[i]);
  __syncthreads();
  return v;
}

__global__ void xent_kernel(const float* logits, const int* labels, int batch, int classes,
                            float* dlogits, float* loss_accum, const float* grad_scale) {
  __shared__ float shared[kBlock / 32];
  const int row = blockIdx.x;
  const float* x = logits + static_cast<std::size_t>(row) * classes;
  float* dx = dlogits + static_cast<std::size_t>(row) * classes;
  float m = -FLT_MAX;
  for (int k = threadIdx.x; k < classes; k += kBlock) m = fmaxf(m, x[k]);
  m = block_reduce(m, shared, [](float a, float b) { return fmaxf(a, b); });
  float s = 0.f;
  for (int k = threadIdx.x; k < classes; k += kBlock) s += __expf(x[k] - m);
  s = block_reduce(s, shared, [](float a, float b) { return a + b; });
  const int label = labels[row];
  const float scale = (grad_scale != nullptr ? *grad_scale : 1.f) / static_cast<float>(batch);
  const float inv_s = 1.f / s;
  for (int k = threadIdx.x; k < classes; k += kBlock) {
    const float p = __expf(x[k] - m) * inv_s;
    dx[k] = (p - (k == label ? 1.f : 0.f)) * scale;
  }
  if (threadIdx.x == 0) {
    const float loss = (label >= 0 && label < classes) ? (logf(s) + m - x[label]) : __int_as_float(0x7fc00000);
    atomicAdd(loss_accum, loss / static_cast<float>(batch));
  }
}

}  // namespace

void softmax_cross_entropy(Context& ctx, const float* logits, const int* labels, int batch,
                           int classes, float* dlogits, float* loss_accum,
                           const float* grad_scale) {
  xent_kernel<<<batch, kBlock, 0, ctx.stream()>>>(logits, labels, batch, classes, dlogits,
                                                  loss_accum, grad_scale);
  AMDAHL_CHECK_LAUNCH();
}

}  // namespace amdahl::dnn
