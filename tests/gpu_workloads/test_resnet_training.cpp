// The ResNet model trains: a tiny ResNet (same code as resnet50, 2 stages of 1 bottleneck,
// width 8, 32x32 inputs, 10 classes) memorizes 64 random images, so its loss falls, in every
// precision; and the full ResNet-50 configuration runs a few steps with a finite loss near
// ln(1000) at a small batch.
#include <doctest/doctest.h>

#include "amdahl/dnn/check.hpp"
#include "amdahl/dnn/conv2d.hpp"
#include "amdahl/dnn/elementwise.hpp"
#include "amdahl/resnet/model.hpp"

#include <cmath>
#include <cstdio>
#include <random>
#include <sstream>
#include <vector>

using namespace amdahl;
using dnn::Precision;

namespace {

struct Batch {
  dnn::Tensor images;
  dnn::DeviceBuffer labels;
};

Batch make_batch(dnn::Context& ctx, dnn::Shape4 shape, int classes, std::uint64_t seed) {
  Batch b{dnn::Tensor(shape, ctx.act_type()), dnn::DeviceBuffer(static_cast<std::size_t>(shape.n) * 4)};
  dnn::fill_uniform(ctx, b.images.data(), b.images.count(), -1.f, 1.f, seed);
  std::mt19937 rng(static_cast<unsigned>(seed));
  std::vector<int> labels(static_cast<std::size_t>(shape.n));
  for (int& l : labels) l = static_cast<int>(rng() % static_cast<unsigned>(classes));
  AMDAHL_CUDA(cudaMemcpyAsync(b.labels.get(), labels.data(), labels.size() * 4,
                              cudaMemcpyHostToDevice, ctx.stream()));
  ctx.synchronize();
  return b;
}

void memorize(Precision p) {
  dnn::Context ctx(p);
  resnet::ResNetConfig cfg;
  cfg.batch = 64;
  cfg.image = 32;
  cfg.classes = 10;
  cfg.blocks = {1, 1};
  cfg.base_width = 8;
  cfg.weight_decay = 0.f;
  resnet::ResNet model(ctx, cfg);
  Batch b = make_batch(ctx, model.input_shape(), cfg.classes, 5);
  const int steps = 200;
  std::vector<float> losses;
  for (int s = 0; s < steps; ++s) {
    model.train_step(b.images.data(), b.labels.as<int>(), 0.05f);
    losses.push_back(model.last_loss());
  }
  std::ostringstream trace;
  for (int s = 0; s < steps; s += 20) trace << ' ' << losses[static_cast<std::size_t>(s)];
  trace << " ... " << losses.back();
  if (model.scaler().enabled())
    trace << ", skipped overflow steps " << model.scaler().skipped_steps(ctx);
  INFO("precision " << dnn::to_string(p) << ", loss every 20 steps:" << trace.str());
  for (float l : losses) REQUIRE(std::isfinite(l));
  // Random labels over 10 classes: the first loss is near ln(10) = 2.30.
  CHECK(losses.front() > 1.5f);
  CHECK(losses.front() < 4.0f);
  CHECK(losses.back() < 0.5f * losses.front());
  CHECK(losses.back() < 0.7f);
}

}  // namespace

TEST_CASE("a tiny ResNet memorizes 64 random images (fp32)") { memorize(Precision::fp32); }
TEST_CASE("a tiny ResNet memorizes 64 random images (tf32)") { memorize(Precision::tf32); }
TEST_CASE("a tiny ResNet memorizes 64 random images (fp16, loss scaling)") { memorize(Precision::fp16); }
TEST_CASE("a tiny ResNet memorizes 64 random images (bf16)") { memorize(Precision::bf16); }

TEST_CASE("ResNet-50 at 224x224: shapes wire up and a few steps give a finite loss") {
  for (Precision p : {Precision::fp32, Precision::fp16}) {
    dnn::Context ctx(p);
    resnet::ResNetConfig cfg;  // ResNet-50 defaults
    cfg.batch = 8;
    resnet::ResNet model(ctx, cfg);
    INFO("precision " << dnn::to_string(p));
    CHECK(model.conv_layers() == 53);
    CHECK(model.parameter_count() == 25557032);  // torchvision resnet50
    Batch b = make_batch(ctx, model.input_shape(), cfg.classes, 9);
    float first = 0, last = 0;
    for (int s = 0; s < 3; ++s) {
      model.train_step(b.images.data(), b.labels.as<int>(), 0.01f);
      last = model.last_loss();
      if (s == 0) first = last;
    }
    INFO("losses " << first << " -> " << last);
    REQUIRE(std::isfinite(first));
    REQUIRE(std::isfinite(last));
    CHECK(std::abs(first - std::log(1000.f)) < 1.5f);
  }
}
