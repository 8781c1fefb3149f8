// Kernels of the sentiment CNN's own layers (see text_layers.hpp).
#include "amdahl/sentiment/text_layers.hpp"

#include <cfloat>

#include "amdahl/dnn/check.hpp"

namespace amdahl::sentiment {
namespace {

unsigned grid(std::size_t n) {
  const std::size_t b = (n + 255) / 256;
  return static_cast<unsigned>(b == 0 ? 1 : (b < 65535 ? b : 65535));
}

#define GRID_STRIDE(i, n)                                                              \
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; \
       i < (n); i += static_cast<std::size_t>(gridDim.x) * blockDim.x)

__global__ void embed_fwd(const std::int32_t* tokens, const float* table, float* out,
                          std::size_t total, int dim) {
  GRID_STRIDE(i, total) {
    const std::size_t pos = i / dim;
    const int c = static_cast<int>(i % dim);
    out[i] = table[static_cast<std::size_t>(tokens[pos]) * dim + c];
  }
}

__global__ void embed_bwd(const std::int32_t* tokens, const float* dout, float* dtable,
                          std::size_t total, int dim) {
  GRID_STRIDE(i, total) {
    const std::size_t pos = i / dim;
    const int c = static_cast<int>(i % dim);
    atomicAdd(&dtable[static_cast<std::size_t>(tokens[pos]) * dim + c], dout[i]);
  }
}

__global__ void unfold_kernel(const float* x, float* cols, int batch, int len, int dim,
                              int kernel) {
  const std::size_t total = static_cast<std::size_t>(batch) * len * kernel * dim;
  const int pad = (kernel - 1) / 2;
  GRID_STRIDE(i, total) {
    const int c = static_cast<int>(i % dim);
    const int j = static_cast<int>((i / dim) % kernel);
    const std::size_t row = i / (static_cast<std::size_t>(dim) * kernel);
    const int t = static_cast<int>(row % len);
    const std::size_t b = row / len;
    const int src = t + j - pad;
    cols[i] = (src >= 0 && src < len) ? x[(b * len + src) * dim + c] : 0.f;
  }
}

__global__ void fold_kernel(const float* dcols, float* dx, int batch, int len, int dim,
                            int kernel) {
  const std::size_t total = static_cast<std::size_t>(batch) * len * dim;
  const int pad = (kernel - 1) / 2;
  GRID_STRIDE(i, total) {
    const int c = static_cast<int>(i % dim);
    const std::size_t pos = i / dim;
    const int s = static_cast<int>(pos % len);
    const std::size_t b = pos / len;
    float acc = 0.f;
    for (int j = 0; j < kernel; ++j) {  // x[s] sits in window t = s - j + pad at tap j
      const int t = s - j + pad;
      if (t < 0 || t >= len) continue;
      acc += dcols[((b * len + t) * kernel + j) * dim + c];
    }
    dx[i] = acc;
  }
}

__global__ void maxt_fwd(const float* x, float* y, int* argmax, int batch, int len, int filters) {
  const std::size_t total = static_cast<std::size_t>(batch) * filters;
  GRID_STRIDE(i, total) {
    const int f = static_cast<int>(i % filters);
    const std::size_t b = i / filters;
    float best = -FLT_MAX;
    int at = 0;
    for (int t = 0; t < len; ++t) {
      const float v = x[(b * len + t) * filters + f];
      if (v > best) {
        best = v;
        at = t;
      }
    }
    y[i] = best;
    argmax[i] = at;
  }
}

__global__ void maxt_bwd(const float* dy, const int* argmax, float* dx, int batch, int len,
                         int filters) {
  const std::size_t total = static_cast<std::size_t>(batch) * len * filters;
  GRID_STRIDE(i, total) {
    const int f = static_cast<int>(i % filters);
    const std::size_t pos = i / filters;
    const int t = static_cast<int>(pos % len);
    const std::size_t b = pos / len;
    const std::size_t o = b * filters + f;
    dx[i] = argmax[o] == t ? dy[o] : 0.f;
  }
}

__global__ void correct_kernel(const float* logits, const int* labels, int rows, int classes,
                               unsigned long long* correct) {
  GRID_STRIDE(r, static_cast<std::size_t>(rows)) {
    const float* row = logits + r * classes;
    int best = 0;
    for (int k = 1; k < classes; ++k)
      if (row[k] > row[best]) best = k;
    if (best == labels[r]) atomicAdd(correct, 1ull);
  }
}

}  // namespace

void embedding_forward(const std::int32_t* tokens, const float* table, float* out, int batch,
                       int len, int dim, cudaStream_t stream) {
  const std::size_t total = static_cast<std::size_t>(batch) * len * dim;
  embed_fwd<<<grid(total), 256, 0, stream>>>(tokens, table, out, total, dim);
  AMDAHL_CHECK_LAUNCH();
}

void embedding_backward(const std::int32_t* tokens, const float* dout, float* dtable, int batch,
                        int len, int vocab, int dim, cudaStream_t stream) {
  AMDAHL_CUDA(cudaMemsetAsync(dtable, 0, static_cast<std::size_t>(vocab) * dim * sizeof(float),
                              stream));
  const std::size_t total = static_cast<std::size_t>(batch) * len * dim;
  embed_bwd<<<grid(total), 256, 0, stream>>>(tokens, dout, dtable, total, dim);
  AMDAHL_CHECK_LAUNCH();
}

void unfold1d(const float* x, float* cols, int batch, int len, int dim, int kernel,
              cudaStream_t stream) {
  if (kernel % 2 == 0) throw dnn::DnnError("unfold1d: kernel width must be odd");
  unfold_kernel<<<grid(static_cast<std::size_t>(batch) * len * kernel * dim), 256, 0, stream>>>(
      x, cols, batch, len, dim, kernel);
  AMDAHL_CHECK_LAUNCH();
}

void fold1d(const float* dcols, float* dx, int batch, int len, int dim, int kernel,
            cudaStream_t stream) {
  if (kernel % 2 == 0) throw dnn::DnnError("fold1d: kernel width must be odd");
  fold_kernel<<<grid(static_cast<std::size_t>(batch) * len * dim), 256, 0, stream>>>(
      dcols, dx, batch, len, dim, kernel);
  AMDAHL_CHECK_LAUNCH();
}

void max_over_time_forward(const float* x, float* y, int* argmax, int batch, int len, int filters,
                           cudaStream_t stream) {
  maxt_fwd<<<grid(static_cast<std::size_t>(batch) * filters), 256, 0, stream>>>(x, y, argmax, batch,
                                                                               len, filters);
  AMDAHL_CHECK_LAUNCH();
}

void max_over_time_backward(const float* dy, const int* argmax, float* dx, int batch, int len,
                            int filters, cudaStream_t stream) {
  maxt_bwd<<<grid(static_cast<std::size_t>(batch) * len * filters), 256, 0, stream>>>(
      dy, argmax, dx, batch, len, filters);
  AMDAHL_CHECK_LAUNCH();
}

void count_correct(const float* logits, const int* labels, int rows, int classes,
                   unsigned long long* correct, cudaStream_t stream) {
  correct_kernel<<<grid(static_cast<std::size_t>(rows)), 256, 0, stream>>>(logits, labels, rows,
                                                                           classes, correct);
  AMDAHL_CHECK_LAUNCH();
}

}  // namespace amdahl::sentiment
