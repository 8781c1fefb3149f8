// Fully connected layer in fp32 on cuBLAS (cublasGemmEx): y[N, out] = x[N, in] W^T + b, with W
// row-major [out, in]. fp32 precision computes in plain FP32; other precisions allow TF32.
#pragma once

#include "amdahl/dnn/context.hpp"

namespace amdahl::dnn {

class Linear {
 public:
  Linear(Context& ctx, int batch, int in_features, int out_features);

  int batch() const { return batch_; }
  int in_features() const { return in_; }
  int out_features() const { return out_; }

  void forward(const float* x, const float* w, const float* b, float* y) const;
  // dw, db overwritten; dx overwritten unless null.
  void backward(const float* x, const float* dy, const float* w, float* dx, float* dw,
                float* db) const;

 private:
  Context& ctx_;
  int batch_, in_, out_;
  cublasComputeType_t compute_;
};

}  // namespace amdahl::dnn
