// Transposed 2-D convolution (the decoder's learned upsampling), built on amdahl::dnn::Conv2d:
// a transposed conv from `input` to `output` is the data-gradient of the ordinary conv from
// `output` to `input`, so forward = Conv2d::backward_data, backward-data = Conv2d::forward and
// the filter gradient = Conv2d::backward_filter with the roles of x and dy swapped.
// Filters are [in_channels][k][k][out_channels] (the Conv2d's KRSC with K = our input channels).
#pragma once

#include <memory>

#include "amdahl/dnn/conv2d.hpp"

namespace amdahl::segmentation {

class ConvTranspose2d {
 public:
  // Upsamples input (n, h, w, c) by `stride` to (n, h * stride, w * stride, out_channels) when
  // kernel == stride and pad == 0 (the decoder's 2x2 / stride 2 case); general k/s/p follow the
  // usual transposed-conv size rule out = (in - 1) * s - 2p + k.
  ConvTranspose2d(dnn::Context& ctx, dnn::Shape4 input, int out_channels, int kernel, int stride,
                  int pad);

  dnn::Shape4 input_shape() const { return in_; }
  dnn::Shape4 output_shape() const { return out_; }
  std::size_t weight_count() const { return conv_->weight_count(); }

  void forward(const void* x, const void* w, void* y) const;
  // dx (overwritten) from dy.
  void backward_data(const void* dy, const void* w, void* dx) const;
  // dw (overwritten) from x and dy.
  void backward_filter(const void* x, const void* dy, void* dw) const;

 private:
  dnn::Shape4 in_{}, out_{};
  std::unique_ptr<dnn::Conv2d> conv_;  // ordinary conv: out_ -> in_
};

}  // namespace amdahl::segmentation
