// Construction, initialisation, forward, backward and update of the segmentation FCN.
#include "amdahl/segmentation/fcn.hpp"

#include <cmath>
#include <random>

#include "amdahl/dnn/check.hpp"
#include "amdahl/dnn/elementwise.hpp"
#include "amdahl/segmentation/label_kernels.hpp"

namespace amdahl::segmentation {

using dnn::Shape4;
using dnn::Tensor;

// conv (or transposed conv) + batch norm + ReLU.
struct Fcn::Block {
  std::unique_ptr<dnn::Conv2d> conv;
  std::unique_ptr<ConvTranspose2d> up;
  std::unique_ptr<dnn::BatchNorm> bn;
  dnn::ParamRef w, gamma, beta;
  Shape4 in{}, out{};
  int fan = 0;  // for initialisation
  Tensor c, a, dc, da;
  bool first = false;  // input needs no gradient
};

Fcn::Fcn(dnn::Context& ctx, const FcnConfig& cfg)
    : ctx_(ctx), cfg_(cfg), sgd_(cfg.momentum, cfg.weight_decay) {
  if (cfg.batch < 1 || cfg.height < 8 || cfg.width < 8 || cfg.height % 8 != 0 ||
      cfg.width % 8 != 0 || cfg.classes < 2 || cfg.base_width < 1)
    throw dnn::DnnError("Fcn: batch >= 1, crop a multiple of 8 and >= 8, classes >= 2 required");
  const dnn::DType t = ctx.act_type();
  auto finish = [&](Block& b, Shape4 out, std::size_t weights) {
    b.out = out;
    b.bn = std::make_unique<dnn::BatchNorm>(ctx_, out);
    b.w = params_.add_weight(weights);
    b.gamma = params_.add_fp32(static_cast<std::size_t>(out.c));
    b.beta = params_.add_fp32(static_cast<std::size_t>(out.c));
    b.c = Tensor(out, t);
    b.a = Tensor(out, t);
    b.dc = Tensor(out, t);
    b.da = Tensor(out, t);
  };
  auto down = [&](Shape4 in, int out_c, int stride, bool first) {
    auto b = std::make_unique<Block>();
    b->in = in;
    b->first = first;
    b->conv = std::make_unique<dnn::Conv2d>(ctx_, dnn::ConvSpec{in, out_c, 3, stride, 1, !first});
    b->fan = 9 * in.c;
    finish(*b, b->conv->output_shape(), b->conv->weight_count());
    blocks_.push_back(std::move(b));
    return blocks_.back()->out;
  };
  auto upb = [&](Shape4 in, int out_c) {
    auto b = std::make_unique<Block>();
    b->in = in;
    b->up = std::make_unique<ConvTranspose2d>(ctx_, in, out_c, 2, 2, 0);
    b->fan = in.c;  // each output pixel sees one tap of every input channel
    finish(*b, b->up->output_shape(), b->up->weight_count());
    blocks_.push_back(std::move(b));
    return blocks_.back()->out;
  };
  const int w = cfg.base_width;
  Shape4 cur = input_shape();
  cur = down(cur, w, 2, true);
  cur = down(cur, 2 * w, 2, false);
  cur = down(cur, 4 * w, 2, false);
  cur = down(cur, 4 * w, 1, false);
  cur = upb(cur, 2 * w);
  cur = upb(cur, w);
  cur = upb(cur, w);
  head_ = std::make_unique<dnn::Conv2d>(ctx_, dnn::ConvSpec{cur, cfg.classes, 1, 1, 0, true});
  head_w_ = params_.add_weight(head_->weight_count());
  logits_ = Tensor(head_->output_shape(), t);
  dlogits_ = Tensor(head_->output_shape(), t);
  if (t != dnn::DType::f32) {
    logits32_ = dnn::DeviceBuffer(logits_.count() * sizeof(float));
    dlogits32_ = dnn::DeviceBuffer(logits_.count() * sizeof(float));
  }
  loss_ = dnn::DeviceBuffer(sizeof(float));
  correct_ = dnn::DeviceBuffer(sizeof(unsigned long long));
  params_.allocate(ctx);
  scaler_ = std::make_unique<dnn::LossScaler>(ctx, dnn::needs_loss_scaling(ctx.precision()));

  std::mt19937_64 rng(cfg.seed);
  for (auto& b : blocks_) {
    std::normal_distribution<float> nd(0.f, static_cast<float>(std::sqrt(2.0 / b->fan)));
    std::vector<float> v(b->w.count);
    for (float& x : v) x = nd(rng);
    params_.upload(ctx_, b->w, v);
    params_.upload(ctx_, b->gamma, std::vector<float>(b->gamma.count, 1.f));
    params_.upload(ctx_, b->beta, std::vector<float>(b->beta.count, 0.f));
  }
  std::normal_distribution<float> nd(0.f, static_cast<float>(std::sqrt(1.0 / cur.c)));
  std::vector<float> hw(head_w_.count);
  for (float& x : hw) x = nd(rng);
  params_.upload(ctx_, head_w_, hw);
  reset_metrics();
}

Fcn::~Fcn() = default;

Shape4 Fcn::input_shape() const { return Shape4{cfg_.batch, cfg_.height, cfg_.width, 3}; }

void Fcn::forward(const void* input, const int* labels) {
  const void* cur = input;
  for (auto& b : blocks_) {
    if (b->conv)
      b->conv->forward(cur, params_.value(b->w), b->c.data());
    else
      b->up->forward(cur, params_.value(b->w), b->c.data());
    b->bn->forward_train(b->c.data(), b->a.data(), params_.fp32(b->gamma), params_.fp32(b->beta));
    dnn::relu_forward(ctx_, b->a.data(), b->a.count());
    cur = b->a.data();
  }
  head_->forward(cur, params_.value(head_w_), logits_.data());
  float* logits32 = logits_.dtype() == dnn::DType::f32 ? static_cast<float*>(logits_.data())
                                                       : logits32_.as<float>();
  float* dlogits32 = logits_.dtype() == dnn::DType::f32 ? static_cast<float*>(dlogits_.data())
                                                        : dlogits32_.as<float>();
  if (logits_.dtype() != dnn::DType::f32)
    dnn::convert_to_f32(ctx_, logits_.data(), logits32, logits_.count());
  const std::size_t rows = static_cast<std::size_t>(cfg_.batch) * cfg_.height * cfg_.width;
  pixel_softmax_xent(logits32, labels, rows, cfg_.classes, dlogits32, loss_.as<float>(),
                     correct_.as<unsigned long long>(), scaler_->scale_device(), ctx_.stream());
  if (logits_.dtype() != dnn::DType::f32)
    dnn::convert_from_f32(ctx_, dlogits32, dlogits_.data(), logits_.count());
}

void Fcn::backward(const void* input) {
  Block& last = *blocks_.back();
  head_->backward_filter(last.a.data(), dlogits_.data(), params_.grad(head_w_));
  head_->backward_data(dlogits_.data(), params_.value(head_w_), last.da.data());
  for (std::size_t i = blocks_.size(); i-- > 0;) {
    Block& b = *blocks_[i];
    const void* x = i == 0 ? input : blocks_[i - 1]->a.data();
    dnn::relu_backward(ctx_, b.a.data(), b.da.data(), b.a.count());
    b.bn->backward(b.c.data(), b.da.data(), b.dc.data(), params_.fp32(b.gamma),
                   params_.fp32_grad(b.gamma), params_.fp32_grad(b.beta));
    if (b.conv) {
      b.conv->backward_filter(x, b.dc.data(), params_.grad(b.w));
      if (!b.first) b.conv->backward_data(b.dc.data(), params_.value(b.w), blocks_[i - 1]->da.data());
    } else {
      b.up->backward_filter(x, b.dc.data(), params_.grad(b.w));
      b.up->backward_data(b.dc.data(), params_.value(b.w), blocks_[i - 1]->da.data());
    }
  }
}

void Fcn::forward_loss(const void* input, const int* labels) { forward(input, labels); }

void Fcn::train_step(const void* input, const int* labels, float lr) {
  forward(input, labels);
  backward(input);
  scaler_->check(ctx_, params_);
  sgd_.step(ctx_, params_, lr, *scaler_);
  scaler_->update(ctx_);
}

void Fcn::reset_metrics() {
  AMDAHL_CUDA(cudaMemsetAsync(loss_.get(), 0, sizeof(float), ctx_.stream()));
  AMDAHL_CUDA(cudaMemsetAsync(correct_.get(), 0, sizeof(unsigned long long), ctx_.stream()));
}

float Fcn::loss_sum() const {
  float v = 0.f;
  AMDAHL_CUDA(cudaMemcpyAsync(&v, loss_.get(), sizeof v, cudaMemcpyDeviceToHost, ctx_.stream()));
  ctx_.synchronize();
  return v;
}

unsigned long long Fcn::correct_pixels() const {
  unsigned long long v = 0;
  AMDAHL_CUDA(cudaMemcpyAsync(&v, correct_.get(), sizeof v, cudaMemcpyDeviceToHost, ctx_.stream()));
  ctx_.synchronize();
  return v;
}

}  // namespace amdahl::segmentation
