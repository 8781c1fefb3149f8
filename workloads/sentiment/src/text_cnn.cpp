// Construction, initialisation, forward, backward and update of the sentiment TextCnn.
#include "amdahl/sentiment/text_cnn.hpp"

#include <cmath>
#include <random>

#include "amdahl/dnn/check.hpp"
#include "amdahl/dnn/elementwise.hpp"
#include "amdahl/dnn/loss.hpp"
#include "amdahl/sentiment/text_layers.hpp"

namespace amdahl::sentiment {

namespace {
std::size_t fbytes(std::size_t n) { return n * sizeof(float); }
}  // namespace

TextCnn::TextCnn(dnn::Context& ctx, const TextCnnConfig& c)
    : ctx_(ctx), cfg_(c), sgd_(c.momentum, c.weight_decay) {
  if (ctx.precision() != dnn::Precision::fp32)
    throw dnn::DnnError("TextCnn: only fp32 is supported");
  if (c.batch < 1 || c.seq_len < 1 || c.vocab < 2 || c.dim < 1 || c.kernel < 1 ||
      c.kernel % 2 == 0 || c.filters < 1 || c.classes < 2)
    throw dnn::DnnError("TextCnn: invalid configuration");
  const std::size_t rows = static_cast<std::size_t>(c.batch) * c.seq_len;
  const int kd = c.kernel * c.dim;
  conv_ = std::make_unique<dnn::Linear>(ctx, static_cast<int>(rows), kd, c.filters);
  fc_ = std::make_unique<dnn::Linear>(ctx, c.batch, c.filters, c.classes);
  emb_ = params_.add_fp32(static_cast<std::size_t>(c.vocab) * c.dim);
  conv_w_ = params_.add_fp32(static_cast<std::size_t>(c.filters) * kd);
  conv_b_ = params_.add_fp32(static_cast<std::size_t>(c.filters));
  fc_w_ = params_.add_fp32(static_cast<std::size_t>(c.classes) * c.filters);
  fc_b_ = params_.add_fp32(static_cast<std::size_t>(c.classes));
  emb_out_ = dnn::DeviceBuffer(fbytes(rows * c.dim));
  demb_ = dnn::DeviceBuffer(fbytes(rows * c.dim));
  cols_ = dnn::DeviceBuffer(fbytes(rows * kd));
  dcols_ = dnn::DeviceBuffer(fbytes(rows * kd));
  conv_out_ = dnn::DeviceBuffer(fbytes(rows * c.filters));
  dconv_ = dnn::DeviceBuffer(fbytes(rows * c.filters));
  const std::size_t bf = static_cast<std::size_t>(c.batch) * c.filters;
  pooled_ = dnn::DeviceBuffer(fbytes(bf));
  dpooled_ = dnn::DeviceBuffer(fbytes(bf));
  argmax_ = dnn::DeviceBuffer(bf * sizeof(int));
  logits_ = dnn::DeviceBuffer(fbytes(static_cast<std::size_t>(c.batch) * c.classes));
  dlogits_ = dnn::DeviceBuffer(fbytes(static_cast<std::size_t>(c.batch) * c.classes));
  loss_ = dnn::DeviceBuffer(sizeof(float));
  correct_ = dnn::DeviceBuffer(sizeof(unsigned long long));
  params_.allocate(ctx);
  scaler_ = std::make_unique<dnn::LossScaler>(ctx, false);

  std::mt19937_64 rng(c.seed);
  auto fill = [&](const dnn::ParamRef& p, float bound) {
    std::uniform_real_distribution<float> ud(-bound, bound);
    std::vector<float> v(p.count);
    for (float& x : v) x = ud(rng);
    params_.upload(ctx_, p, v);
  };
  fill(emb_, 0.5f);
  fill(conv_w_, 1.f / std::sqrt(static_cast<float>(kd)));
  fill(conv_b_, 1.f / std::sqrt(static_cast<float>(kd)));
  fill(fc_w_, 1.f / std::sqrt(static_cast<float>(c.filters)));
  fill(fc_b_, 1.f / std::sqrt(static_cast<float>(c.filters)));
  reset_metrics();
}

TextCnn::~TextCnn() = default;

void TextCnn::forward(const std::int32_t* tokens, const int* labels) {
  const cudaStream_t s = ctx_.stream();
  const std::size_t rows = static_cast<std::size_t>(cfg_.batch) * cfg_.seq_len;
  embedding_forward(tokens, params_.fp32(emb_), emb_out_.as<float>(), cfg_.batch, cfg_.seq_len,
                    cfg_.dim, s);
  unfold1d(emb_out_.as<float>(), cols_.as<float>(), cfg_.batch, cfg_.seq_len, cfg_.dim,
           cfg_.kernel, s);
  conv_->forward(cols_.as<float>(), params_.fp32(conv_w_), params_.fp32(conv_b_),
                 conv_out_.as<float>());
  dnn::relu_forward(ctx_, conv_out_.get(), rows * cfg_.filters);
  max_over_time_forward(conv_out_.as<float>(), pooled_.as<float>(), argmax_.as<int>(), cfg_.batch,
                        cfg_.seq_len, cfg_.filters, s);
  fc_->forward(pooled_.as<float>(), params_.fp32(fc_w_), params_.fp32(fc_b_), logits_.as<float>());
  dnn::softmax_cross_entropy(ctx_, logits_.as<float>(), labels, cfg_.batch, cfg_.classes,
                             dlogits_.as<float>(), loss_.as<float>(), nullptr);
  count_correct(logits_.as<float>(), labels, cfg_.batch, cfg_.classes,
                correct_.as<unsigned long long>(), s);
}

void TextCnn::backward(const std::int32_t* tokens) {
  const cudaStream_t s = ctx_.stream();
  const std::size_t rows = static_cast<std::size_t>(cfg_.batch) * cfg_.seq_len;
  fc_->backward(pooled_.as<float>(), dlogits_.as<float>(), params_.fp32(fc_w_),
                dpooled_.as<float>(), params_.fp32_grad(fc_w_), params_.fp32_grad(fc_b_));
  max_over_time_backward(dpooled_.as<float>(), argmax_.as<int>(), dconv_.as<float>(), cfg_.batch,
                         cfg_.seq_len, cfg_.filters, s);
  dnn::relu_backward(ctx_, conv_out_.get(), dconv_.get(), rows * cfg_.filters);
  conv_->backward(cols_.as<float>(), dconv_.as<float>(), params_.fp32(conv_w_), dcols_.as<float>(),
                  params_.fp32_grad(conv_w_), params_.fp32_grad(conv_b_));
  fold1d(dcols_.as<float>(), demb_.as<float>(), cfg_.batch, cfg_.seq_len, cfg_.dim, cfg_.kernel, s);
  embedding_backward(tokens, demb_.as<float>(), params_.fp32_grad(emb_), cfg_.batch, cfg_.seq_len,
                     cfg_.vocab, cfg_.dim, s);
}

void TextCnn::forward_loss(const std::int32_t* tokens, const int* labels) {
  forward(tokens, labels);
}

void TextCnn::train_step(const std::int32_t* tokens, const int* labels, float lr) {
  forward(tokens, labels);
  backward(tokens);
  sgd_.step(ctx_, params_, lr, *scaler_);
}

void TextCnn::reset_metrics() {
  AMDAHL_CUDA(cudaMemsetAsync(loss_.get(), 0, sizeof(float), ctx_.stream()));
  AMDAHL_CUDA(cudaMemsetAsync(correct_.get(), 0, sizeof(unsigned long long), ctx_.stream()));
}

float TextCnn::loss_sum() const {
  float v = 0.f;
  AMDAHL_CUDA(cudaMemcpyAsync(&v, loss_.get(), sizeof v, cudaMemcpyDeviceToHost, ctx_.stream()));
  ctx_.synchronize();
  return v;
}

unsigned long long TextCnn::correct() const {
  unsigned long long v = 0;
  AMDAHL_CUDA(cudaMemcpyAsync(&v, correct_.get(), sizeof v, cudaMemcpyDeviceToHost, ctx_.stream()));
  ctx_.synchronize();
  return v;
}

}  // namespace amdahl::sentiment
