// Max-pooling on cuDNN's pooling API, NHWC.
#include "amdahl/dnn/check.hpp"
#include "amdahl/dnn/pooling.hpp"

namespace amdahl::dnn {

MaxPool2d::MaxPool2d(Context& ctx, Shape4 input, int window, int stride, int pad)
    : ctx_(ctx), in_(input) {
  out_ = Shape4{input.n, (input.h + 2 * pad - window) / stride + 1,
                (input.w + 2 * pad - window) / stride + 1, input.c};
  if (out_.h <= 0 || out_.w <= 0) throw DnnError("max-pool output is empty for " + input.str());
  x_desc_ = TensorDesc(in_, ctx.act_type());
  y_desc_ = TensorDesc(out_, ctx.act_type());
  AMDAHL_CUDNN(cudnnCreatePoolingDescriptor(&desc_));
  AMDAHL_CUDNN(cudnnSetPooling2dDescriptor(desc_, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, window,
                                           window, pad, pad, stride, stride));
}

MaxPool2d::~MaxPool2d() {
  if (desc_ != nullptr) cudnnDestroyPoolingDescriptor(desc_);
}

void MaxPool2d::forward(const void* x, void* y) const {
  const float one = 1.f, zero = 0.f;
  AMDAHL_CUDNN(cudnnPoolingForward(ctx_.cudnn(), desc_, &one, x_desc_.get(), x, &zero,
                                   y_desc_.get(), y));
}

void MaxPool2d::backward(const void* x, const void* y, const void* dy, void* dx) const {
  const float one = 1.f, zero = 0.f;
  AMDAHL_CUDNN(cudnnPoolingBackward(ctx_.cudnn(), desc_, &one, y_desc_.get(), y, y_desc_.get(),
                                    dy, x_desc_.get(), x, &zero, x_desc_.get(), dx));
}

}  // namespace amdahl::dnn
