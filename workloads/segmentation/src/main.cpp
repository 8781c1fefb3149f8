// segmentation: trains the FCN on the PNG dataset read from disk. Loader threads do disk_io and
// cpu_preprocess and feed a bounded queue; the training thread copies each batch to the GPU (h2d,
// on a copy stream, double-buffered) and trains (gpu_compute), one `step` range per step.
#include <chrono>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "amdahl/dnn/check.hpp"
#include "amdahl/dnn/context.hpp"
#include "amdahl/segmentation/fcn.hpp"
#include "amdahl/segmentation/label_kernels.hpp"
#include "amdahl/segmentation/loader.hpp"
#include "amdahl/annotate/stages.hpp"
#include "nvtx_observer.hpp"

namespace seg = amdahl::segmentation;
namespace dnn = amdahl::dnn;
namespace wl = amdahl::annotate;

namespace {

struct Options {
  std::string data;
  int batch = 16;
  int crop = 512;
  int steps = 30;
  int warmup = 5;
  int loader_threads = 1;
  int queue_depth = 4;
  bool pinned = false;
  std::string precision = "fp32";
  float lr = 0.05f;
  std::uint64_t seed = 1;
  int print_every = 10;
};

// Device copies of one batch.
struct DeviceBatch {
  dnn::DeviceBuffer pixels, labels8, labels;
  cudaEvent_t copied = nullptr, consumed = nullptr;
};

int run(const Options& o) {
  const auto precision = dnn::parse_precision(o.precision);
  if (!precision || (*precision != dnn::Precision::fp32 && *precision != dnn::Precision::fp16)) {
    std::fprintf(stderr, "segmentation: --precision must be fp32 or fp16\n");
    return 1;
  }
  if (dnn::cuda_device_count() == 0) {
    std::fprintf(stderr, "segmentation: no CUDA device\n");
    return 2;
  }
  seg::LoaderConfig lc;
  lc.files = seg::list_dataset(o.data);
  lc.batch_size = o.batch;
  lc.crop_width = o.crop;
  lc.crop_height = o.crop;
  lc.threads = o.loader_threads;
  lc.queue_depth = o.queue_depth;
  lc.format = *precision == dnn::Precision::fp16 ? seg::PixelFormat::f16 : seg::PixelFormat::f32;
  lc.seed = o.seed;
  lc.total_batches = o.warmup + o.steps;

  dnn::Context ctx(*precision);
  seg::FcnConfig fc;
  fc.batch = o.batch;
  fc.height = o.crop;
  fc.width = o.crop;
  fc.classes = seg::kNumClasses;
  fc.seed = o.seed;
  seg::Fcn model(ctx, fc);

  cudaStream_t copy_stream = nullptr;
  AMDAHL_CUDA(cudaStreamCreateWithFlags(&copy_stream, cudaStreamNonBlocking));
  const std::size_t pixels = static_cast<std::size_t>(o.batch) * o.crop * o.crop;
  const std::size_t value_bytes = lc.format == seg::PixelFormat::f32 ? 4 : 2;
  DeviceBatch dev[2];
  for (auto& d : dev) {
    d.pixels = dnn::DeviceBuffer(pixels * 3 * value_bytes);
    d.labels8 = dnn::DeviceBuffer(pixels);
    d.labels = dnn::DeviceBuffer(pixels * sizeof(int));
    AMDAHL_CUDA(cudaEventCreateWithFlags(&d.copied, cudaEventDisableTiming));
    AMDAHL_CUDA(cudaEventCreateWithFlags(&d.consumed, cudaEventDisableTiming));
    AMDAHL_CUDA(cudaEventRecord(d.consumed, ctx.stream()));
  }
  seg::BufferAllocator alloc = seg::heap_allocator();
  if (o.pinned)
    alloc = seg::BufferAllocator{[](std::size_t n) {
                                   void* p = nullptr;
                                   AMDAHL_CUDA(cudaHostAlloc(&p, n, cudaHostAllocDefault));
                                   return p;
                                 },
                                 [](void* p) { cudaFreeHost(p); }};
  seg::NvtxObserver observer;
  seg::Loader loader(lc, alloc, &observer);
  ctx.synchronize();

  std::printf("segmentation: %zu files, batch %d, crop %d, %s, %d loader thread(s), queue %d, %s, "
              "%zu parameters\n",
              lc.files.size(), o.batch, o.crop, o.precision.c_str(), o.loader_threads,
              o.queue_depth, o.pinned ? "pinned" : "pageable", model.parameter_count());
  std::optional<seg::Batch> in_flight;  // host batch whose copy may still be running
  cudaEvent_t in_flight_copied = nullptr;
  auto t_start = std::chrono::steady_clock::now();
  const double pixels_per_step = static_cast<double>(pixels);
  for (int step = 0; step < o.warmup + o.steps; ++step) {
    if (step == o.warmup) {
      ctx.synchronize();
      model.reset_metrics();
      t_start = std::chrono::steady_clock::now();
    }
    auto step_range = wl::step_range();
    auto batch = loader.next();
    if (!batch) throw std::runtime_error("loader ended early");
    DeviceBatch& d = dev[step % 2];
    {
      wl::Range r(wl::Stage::h2d);
      if (in_flight) {  // hand the previous host buffer back once its copy is done
        AMDAHL_CUDA(cudaEventSynchronize(in_flight_copied));
        loader.recycle(*in_flight);
      }
      AMDAHL_CUDA(cudaStreamWaitEvent(copy_stream, d.consumed, 0));
      AMDAHL_CUDA(cudaMemcpyAsync(d.pixels.get(), batch->pixels, batch->pixel_bytes,
                                  cudaMemcpyHostToDevice, copy_stream));
      AMDAHL_CUDA(cudaMemcpyAsync(d.labels8.get(), batch->labels, batch->label_bytes,
                                  cudaMemcpyHostToDevice, copy_stream));
      AMDAHL_CUDA(cudaEventRecord(d.copied, copy_stream));
      in_flight = batch;
      in_flight_copied = d.copied;
    }
    {
      wl::Range r(wl::Stage::gpu_compute);
      AMDAHL_CUDA(cudaStreamWaitEvent(ctx.stream(), d.copied, 0));
      seg::widen_labels(d.labels8.as<std::uint8_t>(), d.labels.as<int>(), pixels, ctx.stream());
      model.train_step(d.pixels.get(), d.labels.as<int>(), o.lr);
      AMDAHL_CUDA(cudaEventRecord(d.consumed, ctx.stream()));
    }
    if (o.print_every > 0 && step >= o.warmup && (step - o.warmup + 1) % o.print_every == 0) {
      const int n = step - o.warmup + 1;
      std::printf("step %d: mean loss %.4f, pixel accuracy %.3f\n", n, model.loss_sum() / n,
                  static_cast<double>(model.correct_pixels()) / (pixels_per_step * n));
    }
  }
  ctx.synchronize();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  if (in_flight) loader.recycle(*in_flight);
  const float loss = model.loss_sum() / static_cast<float>(o.steps);
  const double acc = static_cast<double>(model.correct_pixels()) / (pixels_per_step * o.steps);
  std::printf("segmentation: %.1f images/s, loss %.4f, pixel accuracy %.3f (%d steps, %.2f s)\n",
              o.steps * o.batch / seconds, loss, acc, o.steps, seconds);
  loader.stop();
  for (auto& dv : dev) {
    cudaEventDestroy(dv.copied);
    cudaEventDestroy(dv.consumed);
  }
  cudaStreamDestroy(copy_stream);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Train a segmentation FCN from PNG files on disk (instrumented for amdahl)"};
  Options o;
  app.add_option("--data", o.data, "dataset folder (from segmentation_gen)")->required();
  app.add_option("--batch-size", o.batch)->check(CLI::PositiveNumber);
  app.add_option("--crop", o.crop, "crop size (square, multiple of 8)")->check(CLI::PositiveNumber);
  app.add_option("--steps", o.steps, "measured steps")->check(CLI::PositiveNumber);
  app.add_option("--warmup-steps", o.warmup)->check(CLI::NonNegativeNumber);
  app.add_option("--loader-threads", o.loader_threads)->check(CLI::PositiveNumber);
  app.add_option("--queue-depth", o.queue_depth)->check(CLI::PositiveNumber);
  app.add_flag("--pinned", o.pinned, "pinned host batch buffers (default pageable)");
  app.add_option("--precision", o.precision, "fp32 or fp16");
  app.add_option("--lr", o.lr);
  app.add_option("--seed", o.seed);
  app.add_option("--print-every", o.print_every, "print loss every N steps (0: only at the end)");
  CLI11_PARSE(app, argc, argv);
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "segmentation: %s\n", e.what());
    return 2;
  }
}
