// 2-D convolution (NHWC activations, KRSC filters) with forward, backward-data and backward-filter
// through cuDNN. Algorithms are chosen once, at construction, by timing them (cudnnFind*) and are
// cached per layer shape for the whole process; the context's workspace is grown to fit them.
// AMDAHL_CONV_ENGINES=1 also times every backend engine config of each pass (as PyTorch's
// cudnn.benchmark does) and uses the fastest one when it beats the legacy algorithm
// (AMDAHL_CONV_ENGINES=force: always, when one exists; for tests).
#pragma once

#include "amdahl/dnn/context.hpp"
#include "amdahl/dnn/tensor.hpp"

#include <cudnn.h>

#include <cstddef>
#include <memory>
#include <string>

namespace amdahl::dnn {

namespace detail {
class EnginePlan;  // conv_engines.hpp (internal)
}

struct ConvSpec {
  Shape4 input;       // n, h, w, c
  int out_channels = 0;
  int kernel = 1;     // square kernel r = s
  int stride = 1;
  int pad = 0;
  bool need_dgrad = true;  // false for a first layer whose input needs no gradient
};

// Chosen algorithms for one conv shape.
struct ConvAlgos {
  cudnnConvolutionFwdAlgo_t fwd{};
  cudnnConvolutionBwdDataAlgo_t bwd_data{};
  cudnnConvolutionBwdFilterAlgo_t bwd_filter{};
  cudnnMathType_t fwd_math{}, bwd_data_math{}, bwd_filter_math{};
  std::size_t workspace = 0;
  // With AMDAHL_CONV_ENGINES=1: backend-API engine plans that timed faster than the legacy
  // algorithm of the same pass (null otherwise); used for calls with beta = 0.
  std::shared_ptr<const detail::EnginePlan> fwd_plan, bwd_data_plan, bwd_filter_plan;
};

class Conv2d {
 public:
  Conv2d(Context& ctx, const ConvSpec& spec);
  ~Conv2d();
  Conv2d(const Conv2d&) = delete;
  Conv2d& operator=(const Conv2d&) = delete;

  const ConvSpec& spec() const { return spec_; }
  Shape4 output_shape() const { return out_; }
  std::size_t weight_count() const;
  const ConvAlgos& algos() const { return algos_; }

  // y = conv(x, w) + beta * y
  void forward(const void* x, const void* w, void* y, float beta = 0.f) const;
  // dx = conv_transpose(dy, w) + beta * dx
  void backward_data(const void* dy, const void* w, void* dx, float beta = 0.f) const;
  // dw = corr(x, dy) + beta * dw
  void backward_filter(const void* x, const void* dy, void* dw, float beta = 0.f) const;

 private:
  void set_math(cudnnMathType_t m) const;
  std::string cache_key() const;

  Context& ctx_;
  ConvSpec spec_;
  Shape4 out_{};
  TensorDesc x_desc_, y_desc_;
  cudnnFilterDescriptor_t w_desc_ = nullptr;
  cudnnConvolutionDescriptor_t conv_desc_ = nullptr;
  ConvAlgos algos_;
};

// Number of distinct conv shapes whose algorithms were searched so far (for logs and tests).
std::size_t conv_algo_cache_size();

}  // namespace amdahl::dnn
