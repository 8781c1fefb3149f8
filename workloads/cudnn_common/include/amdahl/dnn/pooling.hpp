// Pooling layers: square max-pooling on cuDNN (NHWC), and global average pooling (own kernels)
// whose output is an fp32 [N, C] matrix ready for the fully connected layer.
#pragma once

#include "amdahl/dnn/context.hpp"
#include "amdahl/dnn/tensor.hpp"

namespace amdahl::dnn {

class MaxPool2d {
 public:
  MaxPool2d(Context& ctx, Shape4 input, int window, int stride, int pad);
  ~MaxPool2d();
  MaxPool2d(const MaxPool2d&) = delete;
  MaxPool2d& operator=(const MaxPool2d&) = delete;

  Shape4 output_shape() const { return out_; }
  void forward(const void* x, void* y) const;
  // dx (overwritten) from dy, given the forward's input x and output y.
  void backward(const void* x, const void* y, const void* dy, void* dx) const;

 private:
  Context& ctx_;
  Shape4 in_, out_;
  TensorDesc x_desc_, y_desc_;
  cudnnPoolingDescriptor_t desc_ = nullptr;
};

// y[n, c] = mean over h, w of x[n, h, w, c]; x in storage type, y fp32.
void global_avgpool_forward(Context& ctx, Shape4 input, const void* x, float* y);
// dx[n, h, w, c] = dy[n, c] / (H * W); dy fp32, dx in storage type (overwritten).
void global_avgpool_backward(Context& ctx, Shape4 input, const float* dy, void* dx);

}  // namespace amdahl::dnn
