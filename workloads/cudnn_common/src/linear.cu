// Fully connected layer: three cublasGemmEx calls (forward, dgrad, wgrad) and two small kernels
// (bias add, bias gradient as column sums).
#include "amdahl/dnn/linear.hpp"

#include "device_math.cuh"

namespace amdahl::dnn {
namespace {

__global__ void add_bias_kernel(float* y, const float* b, int rows, int cols) {
  const std::size_t total = static_cast<std::size_t>(rows) * cols;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < total;
       i += std::size_t{gridDim.x} * blockDim.x)
    y[i] += b[i % static_cast<std::size_t>(cols)];
}

__global__ void column_sum_kernel(const float* dy, float* db, int rows, int cols) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= cols) return;
  float s = 0.f;
  for (int n = 0; n < rows; ++n) s += dy[static_cast<std::size_t>(n) * cols + k];
  db[k] = s;
}

}  // namespace

Linear::Linear(Context& ctx, int batch, int in_features, int out_features)
    : ctx_(ctx), batch_(batch), in_(in_features), out_(out_features),
      compute_(ctx.precision() == Precision::fp32 ? CUBLAS_COMPUTE_32F
                                                  : CUBLAS_COMPUTE_32F_FAST_TF32) {
  if (batch <= 0 || in_features <= 0 || out_features <= 0)
    throw DnnError("invalid Linear shape");
}

void Linear::forward(const float* x, const float* w, const float* b, float* y) const {
  const float one = 1.f, zero = 0.f;
  // Column-major view: y^T (out x N) = W (out x in, stored as in x out) ^T * x^T (in x N).
  AMDAHL_CUBLAS(cublasGemmEx(ctx_.cublas(), CUBLAS_OP_T, CUBLAS_OP_N, out_, batch_, in_, &one, w,
                             CUDA_R_32F, in_, x, CUDA_R_32F, in_, &zero, y, CUDA_R_32F, out_,
                             compute_, CUBLAS_GEMM_DEFAULT));
  add_bias_kernel<<<detail::grid_for(static_cast<std::size_t>(batch_) * out_), 256, 0,
                    ctx_.stream()>>>(y, b, batch_, out_);
  AMDAHL_CHECK_LAUNCH();
}

void Linear::backward(const float* x, const float* dy, const float* w, float* dx, float* dw,
                      float* db) const {
  const float one = 1.f, zero = 0.f;
  if (dx != nullptr) {
    // dx^T (in x N) = W^T (in x out) * dy^T (out x N)
    AMDAHL_CUBLAS(cublasGemmEx(ctx_.cublas(), CUBLAS_OP_N, CUBLAS_OP_N, in_, batch_, out_, &one,
                               w, CUDA_R_32F, in_, dy, CUDA_R_32F, out_, &zero, dx, CUDA_R_32F,
                               in_, compute_, CUBLAS_GEMM_DEFAULT));
  }
  // dW^T (in x out) = x^T (in x N) * dy (N x out)
  AMDAHL_CUBLAS(cublasGemmEx(ctx_.cublas(), CUBLAS_OP_N, CUBLAS_OP_T, in_, out_, batch_, &one, x,
                             CUDA_R_32F, in_, dy, CUDA_R_32F, out_, &zero, dw, CUDA_R_32F, in_,
                             compute_, CUBLAS_GEMM_DEFAULT));
  column_sum_kernel<<<(out_ + 255) / 256, 256, 0, ctx_.stream()>>>(dy, db, batch_, out_);
  AMDAHL_CHECK_LAUNCH();
}

}  // namespace amdahl::dnn
