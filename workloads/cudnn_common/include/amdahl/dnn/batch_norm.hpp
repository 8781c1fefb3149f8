// Spatial batch normalization in training mode (batch statistics; running statistics updated
// with momentum) on cuDNN. Activations in the context's storage type, NHWC; scale/bias, their
// gradients and the statistics are fp32 vectors of length C.
#pragma once

#include "amdahl/dnn/context.hpp"
#include "amdahl/dnn/tensor.hpp"

namespace amdahl::dnn {

class BatchNorm {
 public:
  BatchNorm(Context& ctx, Shape4 shape, double epsilon = 1e-5, double momentum = 0.1);
  ~BatchNorm();
  BatchNorm(const BatchNorm&) = delete;
  BatchNorm& operator=(const BatchNorm&) = delete;

  // y = gamma * (x - mean) / sqrt(var + eps) + beta with the batch's mean and biased variance.
  void forward_train(const void* x, void* y, const float* gamma, const float* beta);
  // dx (overwritten), dgamma and dbeta (overwritten) from dy, using the statistics saved by the
  // last forward_train. Both passes fall back from the persistent NHWC mode to the plain
  // spatial mode (for this layer, from then on) when cuDNN reports it unsupported.
  void backward(const void* x, const void* dy, void* dx, const float* gamma, float* dgamma,
                float* dbeta);

  const float* running_mean() const { return running_mean_.as<float>(); }
  const float* running_var() const { return running_var_.as<float>(); }
  const float* saved_mean() const { return save_mean_.as<float>(); }
  const float* saved_inv_std() const { return save_inv_var_.as<float>(); }

 private:
  Context& ctx_;
  Shape4 shape_;
  double eps_, momentum_;
  cudnnBatchNormMode_t mode_;
  TensorDesc x_desc_;
  cudnnTensorDescriptor_t param_desc_ = nullptr;
  DeviceBuffer running_mean_, running_var_, save_mean_, save_inv_var_;
};

}  // namespace amdahl::dnn
