// The sentiment classifier: embedding (vocab x dim) -> 1-D "same" convolution of width k with
// `filters` outputs (unfold + one cuBLAS GEMM with bias) -> ReLU -> max over time -> dense to 2
// classes -> softmax cross-entropy. fp32 throughout; SGD with momentum from amdahl::dnn.
#pragma once

#include <cstdint>
#include <memory>

#include "amdahl/dnn/context.hpp"
#include "amdahl/dnn/linear.hpp"
#include "amdahl/dnn/optimizer.hpp"
#include "amdahl/dnn/tensor.hpp"

namespace amdahl::sentiment {

struct TextCnnConfig {
  int batch = 256;
  int seq_len = 128;
  int vocab = 128;
  int dim = 128;
  int kernel = 5;  // odd
  int filters = 256;
  int classes = 2;
  float momentum = 0.9f;
  float weight_decay = 1e-5f;
  std::uint64_t seed = 1;
};

class TextCnn {
 public:
  TextCnn(dnn::Context& ctx, const TextCnnConfig& config);
  ~TextCnn();
  TextCnn(const TextCnn&) = delete;
  TextCnn& operator=(const TextCnn&) = delete;

  // tokens [batch, seq_len] int32 and labels [batch] int32, on the device.
  void train_step(const std::int32_t* tokens, const int* labels, float lr);
  void forward_loss(const std::int32_t* tokens, const int* labels);
  void reset_metrics();
  float loss_sum() const;                 // sum of per-batch mean losses since reset
  unsigned long long correct() const;     // correctly classified sequences since reset
  std::size_t parameter_count() const { return params_.parameter_count(); }
  dnn::ParamStore& params() { return params_; }

 private:
  void forward(const std::int32_t* tokens, const int* labels);
  void backward(const std::int32_t* tokens);

  dnn::Context& ctx_;
  TextCnnConfig cfg_;
  dnn::ParamStore params_;
  dnn::SgdMomentum sgd_;
  std::unique_ptr<dnn::LossScaler> scaler_;
  std::unique_ptr<dnn::Linear> conv_, fc_;
  dnn::ParamRef emb_, conv_w_, conv_b_, fc_w_, fc_b_;
  dnn::DeviceBuffer emb_out_, cols_, conv_out_, pooled_, argmax_, logits_;
  dnn::DeviceBuffer dlogits_, dpooled_, dconv_, dcols_, demb_, loss_, correct_;
};

}  // namespace amdahl::sentiment
