// The segmentation network: a fully-convolutional encoder-decoder. Encoder: three 3x3 stride-2
// conv+BN+ReLU blocks (3 -> w -> 2w -> 4w channels, 1/8 resolution) and one 3x3 stride-1 block;
// decoder: three 2x2 stride-2 transposed conv+BN+ReLU blocks back to full resolution; head: a
// 1x1 conv to per-pixel class logits; loss: per-pixel softmax cross-entropy (mean over pixels).
// NHWC activations in the context's storage type; SGD with momentum from amdahl::dnn.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "amdahl/dnn/batch_norm.hpp"
#include "amdahl/dnn/context.hpp"
#include "amdahl/dnn/conv2d.hpp"
#include "amdahl/dnn/optimizer.hpp"
#include "amdahl/dnn/tensor.hpp"
#include "amdahl/segmentation/conv_transpose.hpp"

namespace amdahl::segmentation {

struct FcnConfig {
  int batch = 8;
  int height = 512;  // crop size; a multiple of 8
  int width = 512;
  int classes = 5;
  int base_width = 32;
  float momentum = 0.9f;
  float weight_decay = 1e-4f;
  std::uint64_t seed = 1;
};

class Fcn {
 public:
  Fcn(dnn::Context& ctx, const FcnConfig& config);
  ~Fcn();
  Fcn(const Fcn&) = delete;
  Fcn& operator=(const Fcn&) = delete;

  dnn::Shape4 input_shape() const;
  // One training step on a device batch: input NHWC storage type, labels int32 [n*h*w].
  void train_step(const void* input, const int* labels, float lr);
  // Forward + loss only (accumulates into the loss scalar).
  void forward_loss(const void* input, const int* labels);
  // Zeroes the device loss / pixel-accuracy accumulators.
  void reset_metrics();
  // Host reads of the accumulators (synchronize the stream).
  float loss_sum() const;
  unsigned long long correct_pixels() const;
  std::size_t parameter_count() const { return params_.parameter_count(); }

 private:
  struct Block;
  void forward(const void* input, const int* labels);
  void backward(const void* input);

  dnn::Context& ctx_;
  FcnConfig cfg_;
  dnn::ParamStore params_;
  dnn::SgdMomentum sgd_;
  std::unique_ptr<dnn::LossScaler> scaler_;
  std::vector<std::unique_ptr<Block>> blocks_;
  std::unique_ptr<dnn::Conv2d> head_;
  dnn::ParamRef head_w_;
  dnn::Tensor logits_, dlogits_;           // storage type
  dnn::DeviceBuffer logits32_, dlogits32_;  // fp32 (aliases when storage is fp32)
  dnn::DeviceBuffer loss_, correct_;
};

}  // namespace amdahl::segmentation
