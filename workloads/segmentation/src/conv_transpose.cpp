// ConvTranspose2d as the adjoint of an ordinary cuDNN convolution.
#include "amdahl/segmentation/conv_transpose.hpp"

#include "amdahl/dnn/check.hpp"

namespace amdahl::segmentation {

ConvTranspose2d::ConvTranspose2d(dnn::Context& ctx, dnn::Shape4 input, int out_channels,
                                 int kernel, int stride, int pad)
    : in_(input) {
  if (out_channels < 1 || kernel < 1 || stride < 1 || pad < 0)
    throw dnn::DnnError("ConvTranspose2d: invalid configuration");
  out_ = dnn::Shape4{input.n, (input.h - 1) * stride - 2 * pad + kernel,
                     (input.w - 1) * stride - 2 * pad + kernel, out_channels};
  conv_ = std::make_unique<dnn::Conv2d>(
      ctx, dnn::ConvSpec{out_, input.c, kernel, stride, pad, /*need_dgrad=*/true});
  if (!(conv_->output_shape() == in_))
    throw dnn::DnnError("ConvTranspose2d: " + in_.str() + " is not the conv image of " +
                        out_.str());
}

void ConvTranspose2d::forward(const void* x, const void* w, void* y) const {
  conv_->backward_data(x, w, y, 0.f);
}

void ConvTranspose2d::backward_data(const void* dy, const void* w, void* dx) const {
  conv_->forward(dy, w, dx, 0.f);
}

void ConvTranspose2d::backward_filter(const void* x, const void* dy, void* dw) const {
  conv_->backward_filter(dy, x, dw, 0.f);
}

}  // namespace amdahl::segmentation
