// ResNet v1.5 (bottleneck blocks, stride in the 3x3 conv) for training on the amdahl_dnn layer
// library: NHWC activations in the precision's storage type, fp32 batch-norm and classifier,
// softmax cross-entropy, SGD with momentum and weight decay, fp16 dynamic loss scaling.
// ResNetConfig's defaults are ResNet-50 on 224x224x3 ImageNet-shaped inputs with 1000 classes;
// smaller configurations (fewer blocks, narrower, smaller images) serve the tests.
#pragma once

#include "amdahl/dnn/batch_norm.hpp"
#include "amdahl/dnn/context.hpp"
#include "amdahl/dnn/conv2d.hpp"
#include "amdahl/dnn/linear.hpp"
#include "amdahl/dnn/optimizer.hpp"
#include "amdahl/dnn/pooling.hpp"
#include "amdahl/dnn/tensor.hpp"

#include <cstdint>
#include <memory>
#include <vector>

namespace amdahl::resnet {

struct ResNetConfig {
  int batch = 128;
  int image = 224;
  int in_channels = 3;
  int classes = 1000;
  std::vector<int> blocks{3, 4, 6, 3};  // bottleneck blocks per stage (ResNet-50)
  int base_width = 64;                  // width of the first stage (x4 at its output)
  float momentum = 0.9f;
  float weight_decay = 1e-4f;
  std::uint64_t seed = 1;
};

class ResNet {
 public:
  ResNet(dnn::Context& ctx, const ResNetConfig& cfg);
  ~ResNet();
  ResNet(const ResNet&) = delete;
  ResNet& operator=(const ResNet&) = delete;

  // NHWC input shape; the input is in the context's storage type, labels are int32 [batch].
  dnn::Shape4 input_shape() const;
  // Enqueues one training step (forward, loss, backward, optimizer) on the context's stream.
  // Does not synchronize; `input` and `labels` must stay valid until the stream has run it.
  void train_step(const void* input, const int* labels, float lr);
  // The forward pass and loss only (no parameter update); for tests.
  void forward_loss(const void* input, const int* labels);
  // The batch-mean loss of the last step (synchronizes).
  float last_loss() const;
  std::size_t parameter_count() const { return params_.parameter_count(); }
  int conv_layers() const;
  const dnn::LossScaler& scaler() const { return *scaler_; }
  dnn::ParamStore& params() { return params_; }

 private:
  enum class Act { none, relu, add_relu };
  struct Unit;   // conv + batch norm (+ activation) and its tensors
  struct Block;  // one bottleneck block

  std::unique_ptr<Unit> make_unit(dnn::Shape4 in, int out_c, int kernel, int stride, int pad,
                                  Act act, bool need_dgrad);
  void unit_forward(Unit& u, const void* x, const void* residual);
  // Backward of a unit whose output gradient is in `dy` (masked in place for ReLU): fills the
  // weight gradients and, when dx is set, dx = dgrad + beta * dx.
  void unit_backward(Unit& u, const void* x, void* dy, void* dx, float beta);
  void forward(const void* input, const int* labels);
  void backward(const void* input);
  void init_parameters();

  dnn::Context& ctx_;
  ResNetConfig cfg_;
  dnn::ParamStore params_;
  std::unique_ptr<dnn::LossScaler> scaler_;
  dnn::SgdMomentum sgd_;

  std::unique_ptr<Unit> stem_;
  std::unique_ptr<dnn::MaxPool2d> pool_;
  dnn::Tensor pool_out_, pool_grad_;
  std::vector<std::unique_ptr<Block>> blocks_;
  dnn::Shape4 final_shape_{};
  std::unique_ptr<dnn::Linear> fc_;
  dnn::ParamRef fc_w_, fc_b_;
  dnn::DeviceBuffer pooled_, pooled_grad_, logits_, logits_grad_, loss_;
};

}  // namespace amdahl::resnet
