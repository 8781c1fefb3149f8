// ResNet v1.5 construction, initialization (Kaiming-normal convs, unit BN scale, PyTorch-style
// uniform classifier), forward, backward and the optimizer step.
#include "amdahl/resnet/model.hpp"

#include "amdahl/dnn/check.hpp"
#include "amdahl/dnn/elementwise.hpp"
#include "amdahl/dnn/loss.hpp"

#include <cmath>
#include <random>

namespace amdahl::resnet {

using dnn::Shape4;
using dnn::Tensor;

struct ResNet::Unit {
  std::unique_ptr<dnn::Conv2d> conv;
  std::unique_ptr<dnn::BatchNorm> bn;
  dnn::ParamRef w, gamma, beta;
  Tensor c, a;    // conv output, BN (+ activation) output
  Tensor dc, da;  // their gradients
  Act act = Act::none;
};

struct ResNet::Block {
  std::unique_ptr<Unit> u1, u2, u3, down;  // down: projection shortcut (first block of a stage)
  Shape4 in{};
};

ResNet::ResNet(dnn::Context& ctx, const ResNetConfig& cfg)
    : ctx_(ctx), cfg_(cfg), sgd_(cfg.momentum, cfg.weight_decay) {
  if (cfg.batch <= 0 || cfg.image < 32 || cfg.classes <= 1 || cfg.blocks.empty())
    throw dnn::DnnError("invalid ResNet configuration");
  const Shape4 in = input_shape();
  stem_ = make_unit(in, cfg.base_width, 7, 2, 3, Act::relu, /*need_dgrad=*/false);
  pool_ = std::make_unique<dnn::MaxPool2d>(ctx, stem_->c.shape(), 3, 2, 1);
  pool_out_ = Tensor(pool_->output_shape(), ctx.act_type());
  pool_grad_ = Tensor(pool_->output_shape(), ctx.act_type());

  Shape4 cur = pool_->output_shape();
  for (std::size_t stage = 0; stage < cfg.blocks.size(); ++stage) {
    const int width = cfg.base_width << stage;
    for (int b = 0; b < cfg.blocks[stage]; ++b) {
      const int stride = (stage > 0 && b == 0) ? 2 : 1;
      auto blk = std::make_unique<Block>();
      blk->in = cur;
      blk->u1 = make_unit(cur, width, 1, 1, 0, Act::relu, true);
      blk->u2 = make_unit(blk->u1->c.shape(), width, 3, stride, 1, Act::relu, true);
      blk->u3 = make_unit(blk->u2->c.shape(), width * 4, 1, 1, 0, Act::add_relu, true);
      if (b == 0) blk->down = make_unit(cur, width * 4, 1, stride, 0, Act::none, true);
      cur = blk->u3->c.shape();
      blocks_.push_back(std::move(blk));
    }
  }
  final_shape_ = cur;
  fc_ = std::make_unique<dnn::Linear>(ctx, cfg.batch, cur.c, cfg.classes);
  fc_w_ = params_.add_fp32(static_cast<std::size_t>(cur.c) * cfg.classes);
  fc_b_ = params_.add_fp32(static_cast<std::size_t>(cfg.classes));
  const std::size_t bc = static_cast<std::size_t>(cfg.batch);
  pooled_ = dnn::DeviceBuffer(bc * cur.c * sizeof(float));
  pooled_grad_ = dnn::DeviceBuffer(bc * cur.c * sizeof(float));
  logits_ = dnn::DeviceBuffer(bc * cfg.classes * sizeof(float));
  logits_grad_ = dnn::DeviceBuffer(bc * cfg.classes * sizeof(float));
  loss_ = dnn::DeviceBuffer(sizeof(float));

  params_.allocate(ctx);
  scaler_ = std::make_unique<dnn::LossScaler>(ctx, dnn::needs_loss_scaling(ctx.precision()));
  init_parameters();
}

ResNet::~ResNet() = default;

Shape4 ResNet::input_shape() const {
  return Shape4{cfg_.batch, cfg_.image, cfg_.image, cfg_.in_channels};
}

int ResNet::conv_layers() const {
  int n = 1;
  for (const auto& b : blocks_) n += b->down ? 4 : 3;
  return n;
}

std::unique_ptr<ResNet::Unit> ResNet::make_unit(Shape4 in, int out_c, int kernel, int stride,
                                                int pad, Act act, bool need_dgrad) {
  auto u = std::make_unique<Unit>();
  u->conv = std::make_unique<dnn::Conv2d>(
      ctx_, dnn::ConvSpec{in, out_c, kernel, stride, pad, need_dgrad});
  const Shape4 out = u->conv->output_shape();
  u->bn = std::make_unique<dnn::BatchNorm>(ctx_, out);
  u->w = params_.add_weight(u->conv->weight_count());
  u->gamma = params_.add_fp32(static_cast<std::size_t>(out_c));
  u->beta = params_.add_fp32(static_cast<std::size_t>(out_c));
  const dnn::DType t = ctx_.act_type();
  u->c = Tensor(out, t);
  u->a = Tensor(out, t);
  u->dc = Tensor(out, t);
  u->da = Tensor(out, t);
  u->act = act;
  return u;
}

void ResNet::init_parameters() {
  std::mt19937_64 rng(cfg_.seed);
  auto init_unit = [&](Unit& u) {
    const dnn::ConvSpec& s = u.conv->spec();
    // Kaiming normal, fan_out, ReLU gain (torchvision's ResNet init).
    const double std_dev = std::sqrt(2.0 / (static_cast<double>(s.out_channels) * s.kernel * s.kernel));
    std::normal_distribution<float> nd(0.f, static_cast<float>(std_dev));
    std::vector<float> w(u.w.count);
    for (float& v : w) v = nd(rng);
    params_.upload(ctx_, u.w, w);
    params_.upload(ctx_, u.gamma, std::vector<float>(u.gamma.count, 1.f));
    params_.upload(ctx_, u.beta, std::vector<float>(u.beta.count, 0.f));
  };
  init_unit(*stem_);
  for (auto& b : blocks_) {
    for (Unit* u : {b->u1.get(), b->u2.get(), b->u3.get(), b->down.get()})
      if (u != nullptr) init_unit(*u);
  }
  const float bound = 1.f / std::sqrt(static_cast<float>(final_shape_.c));
  std::uniform_real_distribution<float> ud(-bound, bound);
  std::vector<float> fw(fc_w_.count), fb(fc_b_.count);
  for (float& v : fw) v = ud(rng);
  for (float& v : fb) v = ud(rng);
  params_.upload(ctx_, fc_w_, fw);
  params_.upload(ctx_, fc_b_, fb);
}

void ResNet::unit_forward(Unit& u, const void* x, const void* residual) {
  u.conv->forward(x, params_.value(u.w), u.c.data());
  // BN, ReLU and the residual join run as one fused kernel (no separate activation pass).
  const dnn::BnActivation act = u.act == Act::relu       ? dnn::BnActivation::relu
                                : u.act == Act::add_relu ? dnn::BnActivation::add_relu
                                                         : dnn::BnActivation::none;
  u.bn->forward_train(u.c.data(), u.a.data(), params_.fp32(u.gamma), params_.fp32(u.beta), act,
                      residual);
}

void ResNet::unit_backward(Unit& u, const void* x, void* dy, void* dx, float beta) {
  // A block's last unit masks dy in place: the masked gradient also feeds the shortcut. A plain
  // ReLU unit lets the BN backward apply the mask itself (one pass less over dy).
  if (u.act == Act::add_relu) dnn::relu_backward(ctx_, u.a.data(), dy, u.a.count());
  u.bn->backward(u.c.data(), dy, u.dc.data(), params_.fp32(u.gamma), params_.fp32_grad(u.gamma),
                 params_.fp32_grad(u.beta), u.act == Act::relu ? u.a.data() : nullptr);
  u.conv->backward_filter(x, u.dc.data(), params_.grad(u.w));
  if (dx != nullptr) u.conv->backward_data(u.dc.data(), params_.value(u.w), dx, beta);
}

void ResNet::forward(const void* input, const int* labels) {
  unit_forward(*stem_, input, nullptr);
  pool_->forward(stem_->a.data(), pool_out_.data());
  const void* cur = pool_out_.data();
  for (auto& b : blocks_) {
    unit_forward(*b->u1, cur, nullptr);
    unit_forward(*b->u2, b->u1->a.data(), nullptr);
    if (b->down) unit_forward(*b->down, cur, nullptr);
    unit_forward(*b->u3, b->u2->a.data(), b->down ? b->down->a.data() : cur);
    cur = b->u3->a.data();
  }
  dnn::global_avgpool_forward(ctx_, final_shape_, cur, pooled_.as<float>());
  fc_->forward(pooled_.as<float>(), params_.fp32(fc_w_), params_.fp32(fc_b_), logits_.as<float>());
  AMDAHL_CUDA(cudaMemsetAsync(loss_.get(), 0, sizeof(float), ctx_.stream()));
  dnn::softmax_cross_entropy(ctx_, logits_.as<float>(), labels, cfg_.batch, cfg_.classes,
                             logits_grad_.as<float>(), loss_.as<float>(), scaler_->scale_device());
}

void ResNet::backward(const void* input) {
  fc_->backward(pooled_.as<float>(), logits_grad_.as<float>(), params_.fp32(fc_w_),
                pooled_grad_.as<float>(), params_.fp32_grad(fc_w_), params_.fp32_grad(fc_b_));
  dnn::global_avgpool_backward(ctx_, final_shape_, pooled_grad_.as<float>(),
                               blocks_.back()->u3->da.data());
  for (std::size_t i = blocks_.size(); i-- > 0;) {
    Block& b = *blocks_[i];
    const void* in = i == 0 ? pool_out_.data() : blocks_[i - 1]->u3->a.data();
    void* din = i == 0 ? pool_grad_.data() : blocks_[i - 1]->u3->da.data();
    // relu(bn3(c3) + shortcut): the masked gradient flows to both the BN and the shortcut.
    unit_backward(*b.u3, b.u2->a.data(), b.u3->da.data(), b.u2->da.data(), 0.f);
    unit_backward(*b.u2, b.u1->a.data(), b.u2->da.data(), b.u1->da.data(), 0.f);
    if (b.down) {
      unit_backward(*b.down, in, b.u3->da.data(), din, 0.f);
    } else {
      AMDAHL_CUDA(cudaMemcpyAsync(din, b.u3->da.data(), b.u3->da.bytes(), cudaMemcpyDeviceToDevice,
                                  ctx_.stream()));
    }
    unit_backward(*b.u1, in, b.u1->da.data(), din, 1.f);
  }
  pool_->backward(stem_->a.data(), pool_out_.data(), pool_grad_.data(), stem_->da.data());
  unit_backward(*stem_, input, stem_->da.data(), nullptr, 0.f);
}

void ResNet::forward_loss(const void* input, const int* labels) { forward(input, labels); }

void ResNet::train_step(const void* input, const int* labels, float lr) {
  forward(input, labels);
  backward(input);
  scaler_->check(ctx_, params_);
  sgd_.step(ctx_, params_, lr, *scaler_);
  scaler_->update(ctx_);
}

float ResNet::last_loss() const {
  float v = 0.f;
  AMDAHL_CUDA(cudaMemcpyAsync(&v, loss_.get(), sizeof(float), cudaMemcpyDeviceToHost,
                              ctx_.stream()));
  ctx_.synchronize();
  return v;
}

}  // namespace amdahl::resnet
