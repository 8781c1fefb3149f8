// resnet50: ResNet-50 v1.5 training on synthetic ImageNet-shaped data, instrumented with the
// amdahl stage ranges: per step a `step` range holding cpu_preprocess and h2d (with --data host),
// gpu_compute (enqueueing forward, backward and the optimizer) and the final stream sync, so the
// step range is the real step time. Prints images/s over the timed steps (after warm-up).
#include "amdahl/dnn/check.hpp"
#include "amdahl/dnn/conv2d.hpp"
#include "amdahl/resnet/model.hpp"
#include "amdahl/annotate/stages.hpp"
#include "options.hpp"
#include "synthetic_batch.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <vector>

namespace {

using amdahl::annotate::Range;
using amdahl::annotate::Stage;
using Clock = std::chrono::steady_clock;

int run(const amdahl::resnet::Options& opt) {
  namespace dnn = amdahl::dnn;
  namespace rn = amdahl::resnet;
  if (dnn::cuda_device_count() == 0) {
    std::fprintf(stderr, "resnet50: error: no CUDA device available\n");
    return 2;
  }
  dnn::Context ctx(opt.precision);
  cudaDeviceProp prop{};
  AMDAHL_CUDA(cudaGetDeviceProperties(&prop, 0));

  rn::ResNetConfig cfg;
  cfg.batch = opt.batch_size;
  cfg.image = opt.image;
  cfg.classes = opt.classes;
  cfg.seed = opt.seed;
  const auto t_setup = Clock::now();
  rn::ResNet model(ctx, cfg);
  const bool host_data = opt.data == rn::DataSource::host;
  rn::SyntheticBatch batch(ctx, model.input_shape(), opt.classes, host_data, opt.pinned, opt.seed);
  const double setup_s = std::chrono::duration<double>(Clock::now() - t_setup).count();
  if (!opt.quiet) {
    std::printf("resnet50: %s, precision %s, batch %d, %dx%d, data %s%s\n", prop.name,
                dnn::to_string(opt.precision), opt.batch_size, opt.image, opt.image,
                host_data ? "host" : "device", host_data ? (opt.pinned ? " (pinned)" : " (pageable)") : "");
    std::printf("resnet50: %zu parameters, %d conv layers, %zu conv shapes searched, workspace %.1f MiB, setup %.1f s\n",
                model.parameter_count(), model.conv_layers(), dnn::conv_algo_cache_size(),
                static_cast<double>(ctx.workspace_bytes()) / (1024.0 * 1024.0), setup_s);
    std::fflush(stdout);
  }

  const int total = opt.warmup_steps + opt.steps;
  std::vector<double> step_ms;
  step_ms.reserve(static_cast<std::size_t>(opt.steps));
  Clock::time_point timed_start{};
  float first_loss = 0.f;
  for (int s = 0; s < total; ++s) {
    if (s == opt.warmup_steps) timed_start = Clock::now();
    const auto t0 = Clock::now();
    {
      auto step = amdahl::annotate::step_range();
      if (host_data) {
        {
          Range r(Stage::cpu_preprocess);
          batch.prepare_on_host(static_cast<std::uint64_t>(s));
        }
        {
          Range r(Stage::h2d);
          batch.copy_to_device();
        }
      }
      {
        Range r(Stage::gpu_compute);
        model.train_step(batch.images(), batch.labels(), opt.lr);
      }
      ctx.synchronize();
    }
    if (s >= opt.warmup_steps)
      step_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    if (s == 0) first_loss = model.last_loss();
  }
  const double elapsed = std::chrono::duration<double>(Clock::now() - timed_start).count();
  const double ips = static_cast<double>(opt.batch_size) * opt.steps / elapsed;
  const float loss = model.last_loss();
  std::sort(step_ms.begin(), step_ms.end());
  const double median = step_ms[step_ms.size() / 2];
  if (!opt.quiet) {
    std::printf("resnet50: loss %.4f after step 1, %.4f after step %d", first_loss, loss, total);
    if (model.scaler().enabled())
      std::printf(", loss scale %.0f, %d overflow steps skipped", model.scaler().scale(ctx),
                  model.scaler().skipped_steps(ctx));
    std::printf("\n");
  }
  std::printf("resnet50 precision=%s batch=%d steps=%d step_ms_median=%.2f images_per_sec=%.1f\n",
              dnn::to_string(opt.precision), opt.batch_size, opt.steps, median, ips);
  if (!std::isfinite(loss) || !std::isfinite(first_loss)) {
    std::fprintf(stderr, "resnet50: error: the loss is not finite (%f): training diverged or a layer computed garbage\n",
                 static_cast<double>(loss));
    return 3;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  amdahl::resnet::Options opt;
  int code = 0;
  if (!amdahl::resnet::parse_options(argc, argv, opt, code)) return code;
  try {
    return run(opt);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "resnet50: error: %s\n", e.what());
    return 2;
  }
}
