// Spatial batch normalization in training mode (batch statistics; running statistics updated
// with momentum) on amdahl_dnn's own NHWC kernels (cuDNN's legacy BN picks very slow kernels for
// NHWC). Activations in the context's storage type; scale/bias, their gradients and the
// statistics are fp32 vectors of length C. The forward can fuse the ReLU and the residual
// add + ReLU of a ResNet block; the backward can fuse the ReLU's backward.
#pragma once

#include "amdahl/dnn/context.hpp"
#include "amdahl/dnn/tensor.hpp"

namespace amdahl::dnn {

// What follows the normalization in the forward pass.
enum class BnActivation {
  none,      // y = bn(x)
  relu,      // y = max(bn(x), 0)
  add_relu,  // y = max(bn(x) + residual, 0)
};

class BatchNorm {
 public:
  BatchNorm(Context& ctx, Shape4 shape, double epsilon = 1e-5, double momentum = 0.1);
  ~BatchNorm();
  BatchNorm(const BatchNorm&) = delete;
  BatchNorm& operator=(const BatchNorm&) = delete;

  // y = act(gamma * (x - mean) / sqrt(var + eps) + beta [+ residual]) with the batch's mean and
  // biased variance; the running variance is updated with the unbiased variance (as cuDNN and
  // PyTorch do). `residual` is required for add_relu and ignored otherwise. y may not alias x.
  void forward_train(const void* x, void* y, const float* gamma, const float* beta,
                     BnActivation act = BnActivation::none, const void* residual = nullptr);
  // dx (overwritten), dgamma and dbeta (overwritten) from dy, using the statistics saved by the
  // last forward_train. With relu_output (the forward's output of a BnActivation::relu layer),
  // dy is first masked by relu_output > 0 (dy itself is not modified).
  void backward(const void* x, const void* dy, void* dx, const float* gamma, float* dgamma,
                float* dbeta, const void* relu_output = nullptr);

  const float* running_mean() const { return running_mean_.as<float>(); }
  const float* running_var() const { return running_var_.as<float>(); }
  const float* saved_mean() const { return save_mean_.as<float>(); }
  const float* saved_inv_std() const { return save_inv_var_.as<float>(); }

 private:
  Context& ctx_;
  Shape4 shape_;
  double eps_, momentum_;
  int sm_count_ = 1;
  DeviceBuffer running_mean_, running_var_, save_mean_, save_inv_var_;
  DeviceBuffer partial_, coef_;  // reduction partial sums; per-channel scale/shift or dx coefs
};

}  // namespace amdahl::dnn
