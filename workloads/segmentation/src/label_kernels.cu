// Label widening and pixel-accuracy kernels.
#include "amdahl/segmentation/label_kernels.hpp"

#include <cfloat>

#include "amdahl/dnn/check.hpp"

namespace amdahl::segmentation {
namespace {

__global__ void widen_kernel(const std::uint8_t* src, int* dst, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    dst[i] = src[i];
}

__global__ void correct_kernel(const float* logits, const int* labels, std::size_t rows,
                               int classes, unsigned long long* correct) {
  unsigned long long mine = 0;
  for (std::size_t r = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; r < rows;
       r += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const float* row = logits + r * classes;
    int best = 0;
    for (int k = 1; k < classes; ++k)
      if (row[k] > row[best]) best = k;
    mine += best == labels[r] ? 1ull : 0ull;
  }
  for (int off = 16; off > 0; off /= 2) mine += __shfl_down_sync(0xffffffffu, mine, off);
  if ((threadIdx.x & 31) == 0 && mine != 0) atomicAdd(correct, mine);
}

constexpr int kMaxClasses = 32;

__global__ void xent_kernel(const float* logits, const int* labels, std::size_t rows, int classes,
                            float* dlogits, float* loss_accum, unsigned long long* correct,
                            const float* grad_scale) {
  __shared__ float warp_loss[8];
  __shared__ unsigned long long warp_ok[8];
  const float scale = (grad_scale != nullptr ? *grad_scale : 1.f) / static_cast<float>(rows);
  float loss = 0.f;
  unsigned long long ok = 0;
  for (std::size_t r = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; r < rows;
       r += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const float* x = logits + r * classes;
    float* dx = dlogits + r * classes;
    float v[kMaxClasses];
    float m = -FLT_MAX;
    int best = 0;
    for (int k = 0; k < classes; ++k) {
      v[k] = x[k];
      if (v[k] > m) {
        m = v[k];
        best = k;
      }
    }
    float s = 0.f;
    for (int k = 0; k < classes; ++k) {
      v[k] = __expf(v[k] - m);
      s += v[k];
    }
    const int label = labels[r];
    const float inv = 1.f / s;
    for (int k = 0; k < classes; ++k) dx[k] = (v[k] * inv - (k == label ? 1.f : 0.f)) * scale;
    if (label >= 0 && label < classes) {
      loss += logf(s) + m - x[label];
      ok += best == label ? 1ull : 0ull;
    } else {
      loss += __int_as_float(0x7fc00000);
    }
  }
  for (int off = 16; off > 0; off /= 2) {
    loss += __shfl_down_sync(0xffffffffu, loss, off);
    ok += __shfl_down_sync(0xffffffffu, ok, off);
  }
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) {
    warp_loss[warp] = loss;
    warp_ok[warp] = ok;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    float bl = 0.f;
    unsigned long long bo = 0;
    for (int w = 0; w < static_cast<int>(blockDim.x >> 5); ++w) {
      bl += warp_loss[w];
      bo += warp_ok[w];
    }
    atomicAdd(loss_accum, bl / static_cast<float>(rows));
    if (bo != 0) atomicAdd(correct, bo);
  }
}

unsigned blocks_for(std::size_t n) {
  const std::size_t b = (n + 255) / 256;
  return static_cast<unsigned>(b < 4096 ? (b == 0 ? 1 : b) : 4096);
}

}  // namespace

void widen_labels(const std::uint8_t* src, int* dst, std::size_t n, cudaStream_t stream) {
  widen_kernel<<<blocks_for(n), 256, 0, stream>>>(src, dst, n);
  AMDAHL_CHECK_LAUNCH();
}

void pixel_softmax_xent(const float* logits, const int* labels, std::size_t rows, int classes,
                        float* dlogits, float* loss_accum, unsigned long long* correct,
                        const float* grad_scale, cudaStream_t stream) {
  if (classes < 1 || classes > kMaxClasses)
    throw dnn::DnnError("pixel_softmax_xent: 1..32 classes supported");
  xent_kernel<<<blocks_for(rows), 256, 0, stream>>>(logits, labels, rows, classes, dlogits,
                                                    loss_accum, correct, grad_scale);
  AMDAHL_CHECK_LAUNCH();
}

void count_correct(const float* logits, const int* labels, std::size_t rows, int classes,
                   unsigned long long* correct, cudaStream_t stream) {
  correct_kernel<<<blocks_for(rows), 256, 0, stream>>>(logits, labels, rows, classes, correct);
  AMDAHL_CHECK_LAUNCH();
}

}  // namespace amdahl::segmentation
