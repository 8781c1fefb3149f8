// GPU tests of the segmentation workload's own layers and model: the transposed convolution
// (forward against a double CPU reference, data and filter gradients against finite
// differences), the per-pixel softmax cross-entropy (loss, pixel accuracy, gradient against
// finite differences), and a short training run on a tiny generated dataset whose loss falls.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <numeric>
#include <unistd.h>
#include <vector>

#include "amdahl/dnn/check.hpp"
#include "amdahl/segmentation/conv_transpose.hpp"
#include "amdahl/segmentation/fcn.hpp"
#include "amdahl/segmentation/label_kernels.hpp"
#include "amdahl/segmentation/loader.hpp"
#include "gpu_test_util.hpp"

using namespace amdahl;
using namespace amdahl::gpu_test;
using dnn::Shape4;

namespace {

double dot(const std::vector<float>& a, const std::vector<float>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += static_cast<double>(a[i]) * b[i];
  return s;
}

}  // namespace

TEST_CASE("ConvTranspose2d 2x2 stride 2: forward matches the definition, gradients match finite differences") {
  dnn::Context ctx(dnn::Precision::fp32);
  const Shape4 in{2, 3, 4, 3};
  const int oc = 2, k = 2, s = 2;
  segmentation::ConvTranspose2d up(ctx, in, oc, k, s, 0);
  const Shape4 out = up.output_shape();
  REQUIRE(out == Shape4{2, 6, 8, 2});
  REQUIRE(up.weight_count() == static_cast<std::size_t>(in.c * k * k * oc));
  auto x = random_vector(in.count(), 1);
  auto w = random_vector(up.weight_count(), 2);
  auto g = random_vector(out.count(), 3);
  dnn::DeviceBuffer dx_(in.count() * 4), dw_(w.size() * 4), dy_(out.count() * 4), y_(out.count() * 4);
  dnn::DeviceBuffer x_(in.count() * 4), w_(w.size() * 4);
  upload_f32(ctx, x, x_.as<float>());
  upload_f32(ctx, w, w_.as<float>());
  upload_f32(ctx, g, dy_.as<float>());
  up.forward(x_.get(), w_.get(), y_.get());
  const auto y = download_f32(ctx, y_.as<float>(), out.count());
  // definition: y[n, ih*s + r, iw*s + q, o] += x[n, ih, iw, c] * w[c, r, q, o]
  std::vector<double> want(out.count(), 0.0);
  for (int n = 0; n < in.n; ++n)
    for (int ih = 0; ih < in.h; ++ih)
      for (int iw = 0; iw < in.w; ++iw)
        for (int c = 0; c < in.c; ++c)
          for (int r = 0; r < k; ++r)
            for (int q = 0; q < k; ++q)
              for (int o = 0; o < oc; ++o) {
                const std::size_t yi = ((static_cast<std::size_t>(n) * out.h + ih * s + r) * out.w + iw * s + q) * oc + o;
                const std::size_t xi = ((static_cast<std::size_t>(n) * in.h + ih) * in.w + iw) * in.c + c;
                const std::size_t wi = ((static_cast<std::size_t>(c) * k + r) * k + q) * oc + o;
                want[yi] += static_cast<double>(x[xi]) * w[wi];
              }
  const Compare cf = compare("convT forward", y, want, 1e-5);
  CHECK_MESSAGE(cf.ok, cf.message);

  up.backward_data(dy_.get(), w_.get(), dx_.get());
  up.backward_filter(x_.get(), dy_.get(), dw_.get());
  const auto dx = download_f32(ctx, dx_.as<float>(), in.count());
  const auto dw = download_f32(ctx, dw_.as<float>(), w.size());
  // L(x, w) = <g, convT(x, w)>; central differences (exact up to rounding: L is bilinear).
  auto loss = [&](const std::vector<float>& xv, const std::vector<float>& wv) {
    upload_f32(ctx, xv, x_.as<float>());
    upload_f32(ctx, wv, w_.as<float>());
    up.forward(x_.get(), w_.get(), y_.get());
    return dot(download_f32(ctx, y_.as<float>(), out.count()), g);
  };
  const float eps = 0.25f;
  for (std::size_t i = 0; i < x.size(); i += 5) {
    auto xp = x, xm = x;
    xp[i] += eps;
    xm[i] -= eps;
    const double fd = (loss(xp, w) - loss(xm, w)) / (2.0 * eps);
    REQUIRE(dx[i] == doctest::Approx(fd).epsilon(1e-3).scale(1.0));
  }
  for (std::size_t i = 0; i < w.size(); i += 3) {
    auto wp = w, wm = w;
    wp[i] += eps;
    wm[i] -= eps;
    const double fd = (loss(x, wp) - loss(x, wm)) / (2.0 * eps);
    REQUIRE(dw[i] == doctest::Approx(fd).epsilon(1e-3).scale(1.0));
  }
}

TEST_CASE("pixel_softmax_xent: loss, accuracy and gradient against finite differences") {
  dnn::Context ctx(dnn::Precision::fp32);
  const std::size_t rows = 7;
  const int classes = 5;
  auto logits = random_vector(rows * classes, 4, -2.f, 2.f);
  std::vector<int> labels{0, 4, 2, 1, 3, 3, 0};
  dnn::DeviceBuffer l_(logits.size() * 4), dl_(logits.size() * 4), lab_(rows * 4), loss_(4),
      ok_(8);
  AMDAHL_CUDA(cudaMemcpy(lab_.get(), labels.data(), rows * 4, cudaMemcpyHostToDevice));
  auto run = [&](const std::vector<float>& v, float* loss_out, unsigned long long* ok_out) {
    upload_f32(ctx, v, l_.as<float>());
    AMDAHL_CUDA(cudaMemset(loss_.get(), 0, 4));
    AMDAHL_CUDA(cudaMemset(ok_.get(), 0, 8));
    segmentation::pixel_softmax_xent(l_.as<float>(), lab_.as<int>(), rows, classes, dl_.as<float>(),
                                     loss_.as<float>(), ok_.as<unsigned long long>(), nullptr,
                                     ctx.stream());
    ctx.synchronize();
    AMDAHL_CUDA(cudaMemcpy(loss_out, loss_.get(), 4, cudaMemcpyDeviceToHost));
    if (ok_out) AMDAHL_CUDA(cudaMemcpy(ok_out, ok_.get(), 8, cudaMemcpyDeviceToHost));
  };
  float loss = 0;
  unsigned long long ok = 0;
  run(logits, &loss, &ok);
  const auto grad = download_f32(ctx, dl_.as<float>(), logits.size());
  double want = 0;
  unsigned long long want_ok = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    double m = -1e30, s = 0;
    int best = 0;
    for (int k = 0; k < classes; ++k)
      if (logits[r * classes + k] > m) {
        m = logits[r * classes + k];
        best = k;
      }
    for (int k = 0; k < classes; ++k) s += std::exp(logits[r * classes + k] - m);
    want += std::log(s) + m - logits[r * classes + labels[r]];
    want_ok += best == labels[r] ? 1 : 0;
  }
  CHECK(loss == doctest::Approx(want / rows).epsilon(1e-5));
  CHECK(ok == want_ok);
  const float eps = 1e-2f;
  for (std::size_t i = 0; i < logits.size(); ++i) {
    auto p = logits, m = logits;
    p[i] += eps;
    m[i] -= eps;
    float lp = 0, lm = 0;
    run(p, &lp, nullptr);
    run(m, &lm, nullptr);
    const double fd = (static_cast<double>(lp) - lm) / (2.0 * eps);
    REQUIRE(grad[i] == doctest::Approx(fd).epsilon(2e-2).scale(1e-2));
  }
  CHECK_THROWS_AS(segmentation::pixel_softmax_xent(l_.as<float>(), lab_.as<int>(), rows, 33,
                                                   dl_.as<float>(), loss_.as<float>(),
                                                   ok_.as<unsigned long long>(), nullptr,
                                                   ctx.stream()),
                  dnn::DnnError);
}

TEST_CASE("FCN trained from a tiny on-disk dataset: loss falls, accuracy rises") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("amdahl_seg_gpu_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  segmentation::write_dataset(dir, 6, segmentation::SceneConfig{192, 128, 5}, 4);
  segmentation::LoaderConfig lc;
  lc.files = segmentation::list_dataset(dir);
  lc.batch_size = 4;
  lc.crop_width = lc.crop_height = 64;
  lc.threads = 2;
  lc.queue_depth = 2;
  const int steps = 120;
  lc.total_batches = steps;
  dnn::Context ctx(dnn::Precision::fp32);
  segmentation::FcnConfig fc;
  fc.batch = 4;
  fc.height = fc.width = 64;
  fc.base_width = 16;
  segmentation::Fcn model(ctx, fc);
  segmentation::Loader loader(lc, segmentation::heap_allocator());
  const std::size_t pixels = 4u * 64 * 64;
  dnn::DeviceBuffer x(pixels * 3 * 4), l8(pixels), l32(pixels * 4);
  std::vector<float> losses;
  double first_acc = 0, last_acc = 0;
  for (int s = 0; s < steps; ++s) {
    auto b = loader.next();
    REQUIRE(b);
    AMDAHL_CUDA(cudaMemcpy(x.get(), b->pixels, b->pixel_bytes, cudaMemcpyHostToDevice));
    AMDAHL_CUDA(cudaMemcpy(l8.get(), b->labels, b->label_bytes, cudaMemcpyHostToDevice));
    loader.recycle(*b);
    segmentation::widen_labels(l8.as<std::uint8_t>(), l32.as<int>(), pixels, ctx.stream());
    model.reset_metrics();
    model.train_step(x.get(), l32.as<int>(), 0.05f);
    losses.push_back(model.loss_sum());
    const double acc = static_cast<double>(model.correct_pixels()) / pixels;
    if (s < 10) first_acc += acc / 10;
    if (s >= steps - 10) last_acc += acc / 10;
  }
  const double first = std::accumulate(losses.begin(), losses.begin() + 10, 0.0) / 10;
  const double last = std::accumulate(losses.end() - 10, losses.end(), 0.0) / 10;
  MESSAGE("loss ", first, " -> ", last, ", pixel accuracy ", first_acc, " -> ", last_acc);
  CHECK(std::isfinite(last));
  CHECK(last < 0.6 * first);
  CHECK(last_acc > first_acc + 0.1);
  // Seen on the H200 (2026-12-02): 0.586 after this short run; 5 classes, chance 0.2.
  CHECK(last_acc > 0.5);
  loader.stop();
  fs::remove_all(dir);
}
