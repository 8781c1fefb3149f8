// Batch normalization on cuDNN's (legacy, still shipped in cuDNN 9) BN training API. NHWC uses the
// SPATIAL_PERSISTENT mode (as PyTorch does for channels_last), which is the fast NHWC kernel;
// set AMDAHL_BN_MODE=spatial to force the plain spatial mode.
#include "amdahl/dnn/batch_norm.hpp"

#include "amdahl/dnn/check.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace amdahl::dnn {

BatchNorm::BatchNorm(Context& ctx, Shape4 shape, double epsilon, double momentum)
    : ctx_(ctx), shape_(shape), eps_(epsilon), momentum_(momentum) {
  if (epsilon < CUDNN_BN_MIN_EPSILON) throw DnnError("batch norm epsilon below cuDNN's minimum");
  const char* mode_env = std::getenv("AMDAHL_BN_MODE");
  mode_ = (mode_env != nullptr && std::strcmp(mode_env, "spatial") == 0)
              ? CUDNN_BATCHNORM_SPATIAL
              : CUDNN_BATCHNORM_SPATIAL_PERSISTENT;
  x_desc_ = TensorDesc(shape, ctx.act_type());
  AMDAHL_CUDNN(cudnnCreateTensorDescriptor(&param_desc_));
  AMDAHL_CUDNN(cudnnDeriveBNTensorDescriptor(param_desc_, x_desc_.get(), mode_));
  const std::size_t bytes = static_cast<std::size_t>(shape.c) * sizeof(float);
  running_mean_ = DeviceBuffer(bytes);
  running_var_ = DeviceBuffer(bytes);
  save_mean_ = DeviceBuffer(bytes);
  save_inv_var_ = DeviceBuffer(bytes);
  const std::vector<float> zeros(static_cast<std::size_t>(shape.c), 0.f);
  const std::vector<float> ones(static_cast<std::size_t>(shape.c), 1.f);
  AMDAHL_CUDA(cudaMemcpy(running_mean_.get(), zeros.data(), bytes, cudaMemcpyHostToDevice));
  AMDAHL_CUDA(cudaMemcpy(running_var_.get(), ones.data(), bytes, cudaMemcpyHostToDevice));
}

BatchNorm::~BatchNorm() {
  if (param_desc_ != nullptr) cudnnDestroyTensorDescriptor(param_desc_);
}

void BatchNorm::forward_train(const void* x, void* y, const float* gamma, const float* beta) {
  const float one = 1.f, zero = 0.f;
  auto call = [&] {
    return cudnnBatchNormalizationForwardTraining(
        ctx_.cudnn(), mode_, &one, &zero, x_desc_.get(), x, x_desc_.get(), y, param_desc_, gamma,
        beta, momentum_, running_mean_.get(), running_var_.get(), eps_, save_mean_.get(),
        save_inv_var_.get());
  };
  cudnnStatus_t st = call();
  if (st == CUDNN_STATUS_NOT_SUPPORTED && mode_ == CUDNN_BATCHNORM_SPATIAL_PERSISTENT) {
    // The persistent NHWC kernel does not cover every shape/type: use the plain spatial mode
    // for this layer from now on (forward and backward must agree on the mode).
    std::fprintf(stderr, "amdahl_dnn: note: batch norm on %s: SPATIAL_PERSISTENT not supported, "
                 "using SPATIAL\n", shape_.str().c_str());
    mode_ = CUDNN_BATCHNORM_SPATIAL;
    st = call();
  }
  if (st != CUDNN_STATUS_SUCCESS)
    throw_cudnn(st, "cudnnBatchNormalizationForwardTraining", __FILE__, __LINE__);
}

void BatchNorm::backward(const void* x, const void* dy, void* dx, const float* gamma,
                         float* dgamma, float* dbeta) {
  const float one = 1.f, zero = 0.f;
  auto call = [&] {
    return cudnnBatchNormalizationBackward(
        ctx_.cudnn(), mode_, &one, &zero, &one, &zero, x_desc_.get(), x, x_desc_.get(), dy,
        x_desc_.get(), dx, param_desc_, gamma, dgamma, dbeta, eps_, save_mean_.get(),
        save_inv_var_.get());
  };
  cudnnStatus_t st = call();
  if (st == CUDNN_STATUS_NOT_SUPPORTED && mode_ == CUDNN_BATCHNORM_SPATIAL_PERSISTENT) {
    // The saved mean / inverse std of the persistent forward are valid for the spatial backward.
    std::fprintf(stderr, "amdahl_dnn: note: batch norm backward on %s: SPATIAL_PERSISTENT not "
                 "supported, using SPATIAL\n", shape_.str().c_str());
    mode_ = CUDNN_BATCHNORM_SPATIAL;
    st = call();
  }
  if (st != CUDNN_STATUS_SUCCESS)
    throw_cudnn(st, "cudnnBatchNormalizationBackward", __FILE__, __LINE__);
}

}  // namespace amdahl::dnn
