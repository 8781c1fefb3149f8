// GPU tests of the sentiment workload's own layers and model: embedding lookup and its
// scatter-add gradient, the unfold/fold 1-D convolution pair, max-over-time pooling (each
// against a CPU reference and finite differences), and a short training run on a small generated
// corpus whose loss falls and whose accuracy rises well above chance.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include "amdahl/dnn/check.hpp"
#include "amdahl/sentiment/corpus.hpp"
#include "amdahl/sentiment/text_cnn.hpp"
#include "amdahl/sentiment/text_layers.hpp"
#include "gpu_test_util.hpp"

using namespace amdahl;
using namespace amdahl::gpu_test;

namespace {

double dot(const std::vector<float>& a, const std::vector<float>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += static_cast<double>(a[i]) * b[i];
  return s;
}

dnn::DeviceBuffer dev_f32(dnn::Context& ctx, const std::vector<float>& v) {
  dnn::DeviceBuffer b(v.size() * sizeof(float));
  upload_f32(ctx, v, b.as<float>());
  return b;
}

dnn::DeviceBuffer dev_i32(const std::vector<std::int32_t>& v) {
  dnn::DeviceBuffer b(v.size() * sizeof(std::int32_t));
  AMDAHL_CUDA(cudaMemcpy(b.get(), v.data(), b.bytes(), cudaMemcpyHostToDevice));
  return b;
}

}  // namespace

TEST_CASE("embedding: gather forward, scatter-add backward = finite differences") {
  dnn::Context ctx(dnn::Precision::fp32);
  const int batch = 3, len = 5, vocab = 7, dim = 4;
  std::vector<std::int32_t> tokens{0, 3, 3, 6, 1, 2, 2, 2, 5, 0, 4, 1, 3, 6, 6};
  auto table = random_vector(static_cast<std::size_t>(vocab) * dim, 11);
  auto g = random_vector(static_cast<std::size_t>(batch) * len * dim, 12);
  auto tok = dev_i32(tokens);
  auto tab = dev_f32(ctx, table);
  auto dy = dev_f32(ctx, g);
  dnn::DeviceBuffer out(g.size() * 4), dtab(table.size() * 4);
  auto forward = [&](const std::vector<float>& t) {
    upload_f32(ctx, t, tab.as<float>());
    sentiment::embedding_forward(tok.as<std::int32_t>(), tab.as<float>(), out.as<float>(), batch,
                                 len, dim, ctx.stream());
    return download_f32(ctx, out.as<float>(), g.size());
  };
  const auto y = forward(table);
  for (std::size_t p = 0; p < tokens.size(); ++p)
    for (int c = 0; c < dim; ++c) REQUIRE(y[p * dim + c] == table[tokens[p] * dim + c]);
  sentiment::embedding_backward(tok.as<std::int32_t>(), dy.as<float>(), dtab.as<float>(), batch,
                                len, vocab, dim, ctx.stream());
  const auto grad = download_f32(ctx, dtab.as<float>(), table.size());
  const float eps = 0.5f;  // L = <g, embed(table)> is linear in the table
  for (std::size_t i = 0; i < table.size(); ++i) {
    auto p = table, m = table;
    p[i] += eps;
    m[i] -= eps;
    const double fd = (dot(forward(p), g) - dot(forward(m), g)) / (2.0 * eps);
    REQUIRE(grad[i] == doctest::Approx(fd).epsilon(1e-4).scale(1.0));
  }
}

TEST_CASE("unfold1d matches its definition and fold1d is its adjoint (finite differences)") {
  dnn::Context ctx(dnn::Precision::fp32);
  const int batch = 2, len = 6, dim = 3, kernel = 5, pad = 2;
  auto x = random_vector(static_cast<std::size_t>(batch) * len * dim, 21);
  const std::size_t ncols = static_cast<std::size_t>(batch) * len * kernel * dim;
  auto g = random_vector(ncols, 22);
  auto xd = dev_f32(ctx, x);
  auto gd = dev_f32(ctx, g);
  dnn::DeviceBuffer cols(ncols * 4), dx(x.size() * 4);
  auto unfold = [&](const std::vector<float>& v) {
    upload_f32(ctx, v, xd.as<float>());
    sentiment::unfold1d(xd.as<float>(), cols.as<float>(), batch, len, dim, kernel, ctx.stream());
    return download_f32(ctx, cols.as<float>(), ncols);
  };
  const auto c = unfold(x);
  for (int b = 0; b < batch; ++b)
    for (int t = 0; t < len; ++t)
      for (int j = 0; j < kernel; ++j)
        for (int ch = 0; ch < dim; ++ch) {
          const int src = t + j - pad;
          const float want = (src >= 0 && src < len) ? x[(static_cast<std::size_t>(b) * len + src) * dim + ch] : 0.f;
          REQUIRE(c[((static_cast<std::size_t>(b) * len + t) * kernel + j) * dim + ch] == want);
        }
  sentiment::fold1d(gd.as<float>(), dx.as<float>(), batch, len, dim, kernel, ctx.stream());
  const auto grad = download_f32(ctx, dx.as<float>(), x.size());
  const float eps = 0.5f;
  for (std::size_t i = 0; i < x.size(); ++i) {
    auto p = x, m = x;
    p[i] += eps;
    m[i] -= eps;
    const double fd = (dot(unfold(p), g) - dot(unfold(m), g)) / (2.0 * eps);
    REQUIRE(grad[i] == doctest::Approx(fd).epsilon(1e-4).scale(1.0));
  }
  CHECK_THROWS_AS(sentiment::unfold1d(xd.as<float>(), cols.as<float>(), batch, len, dim, 4,
                                      ctx.stream()),
                  dnn::DnnError);
}

TEST_CASE("max over time: forward is the maximum, backward = finite differences") {
  dnn::Context ctx(dnn::Precision::fp32);
  const int batch = 2, len = 7, filters = 3;
  auto x = random_vector(static_cast<std::size_t>(batch) * len * filters, 31);
  auto g = random_vector(static_cast<std::size_t>(batch) * filters, 32);
  auto xd = dev_f32(ctx, x);
  auto gd = dev_f32(ctx, g);
  dnn::DeviceBuffer y(g.size() * 4), arg(g.size() * 4), dx(x.size() * 4);
  auto forward = [&](const std::vector<float>& v) {
    upload_f32(ctx, v, xd.as<float>());
    sentiment::max_over_time_forward(xd.as<float>(), y.as<float>(), arg.as<int>(), batch, len,
                                     filters, ctx.stream());
    return download_f32(ctx, y.as<float>(), g.size());
  };
  const auto yv = forward(x);
  for (int b = 0; b < batch; ++b)
    for (int f = 0; f < filters; ++f) {
      float m = -1e30f;
      for (int t = 0; t < len; ++t) m = std::max(m, x[(static_cast<std::size_t>(b) * len + t) * filters + f]);
      REQUIRE(yv[static_cast<std::size_t>(b) * filters + f] == m);
    }
  sentiment::max_over_time_backward(gd.as<float>(), arg.as<int>(), dx.as<float>(), batch, len,
                                    filters, ctx.stream());
  const auto grad = download_f32(ctx, dx.as<float>(), x.size());
  const float eps = 1e-3f;  // smaller than the gap between distinct random values here
  for (std::size_t i = 0; i < x.size(); ++i) {
    auto p = x, m = x;
    p[i] += eps;
    m[i] -= eps;
    const double fd = (dot(forward(p), g) - dot(forward(m), g)) / (2.0 * eps);
    REQUIRE(grad[i] == doctest::Approx(fd).epsilon(1e-2).scale(1e-2));
  }
}

TEST_CASE("TextCnn on a small generated corpus: loss falls, accuracy well above chance") {
  const auto reviews = sentiment::parse_corpus(sentiment::generate_corpus({5, 1u << 20}));
  const sentiment::Vocabulary vocab;
  const int batch = 64, seq = 64;
  const auto data = sentiment::tokenize_corpus(reviews, vocab, seq);
  dnn::Context ctx(dnn::Precision::fp32);
  sentiment::TextCnnConfig cfg;
  cfg.batch = batch;
  cfg.seq_len = seq;
  cfg.vocab = static_cast<int>(vocab.size());
  cfg.dim = 32;
  cfg.filters = 64;
  sentiment::TextCnn model(ctx, cfg);
  auto tok = dev_i32(data.tokens);
  auto lab = dev_i32(data.labels);
  const std::size_t batches = data.count / batch;
  REQUIRE(batches > 50);
  const int steps = 300;
  double first = 0, last = 0, last_acc = 0;
  for (int s = 0; s < steps; ++s) {
    const std::size_t row = (static_cast<std::size_t>(s) % (batches - 10)) * batch;
    model.reset_metrics();
    model.train_step(tok.as<std::int32_t>() + row * seq, lab.as<int>() + row, 0.05f);
    const double loss = model.loss_sum();
    if (s < 10) first += loss / 10;
    if (s >= steps - 20) last += loss / 20;
  }
  model.reset_metrics();
  for (std::size_t b = batches - 10; b < batches; ++b)  // batches never trained on
    model.forward_loss(tok.as<std::int32_t>() + b * batch * seq, lab.as<int>() + b * batch);
  last_acc = static_cast<double>(model.correct()) / (10.0 * batch);
  MESSAGE("loss ", first, " -> ", last, ", held-out accuracy ", last_acc);
  CHECK(std::isfinite(last));
  CHECK(last < 0.7 * first);
  // Seen on the H200 (2026-12-02): 0.79 held-out after this short run; two classes.
  CHECK(last_acc > 0.7);
}
