// The driving loop and the loader threads of cpu_pipeline, with their NVTX annotations.
#include "pipeline.hpp"

#include <atomic>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "amdahl/annotate/ordered_queue.hpp"
#include "amdahl/annotate/stages.hpp"
#include "pacing.hpp"

namespace amdahl::cpu_pipeline {
namespace {

using annotate::Range;
using annotate::Stage;

// disk_io then cpu_preprocess for batch `index`, on the calling thread.
Batch load_batch(std::int64_t index, const Options& o, const StageWork& work, Pacer& pacer) {
  Batch b = work.make_batch();
  {
    Range r(Stage::disk_io);
    work.disk_io(index, b);
    pacer.spend_ms(o.io_ms);
  }
  {
    Range r(Stage::cpu_preprocess);
    work.preprocess(b);
    pacer.spend_ms(o.preprocess_ms);
  }
  return b;
}

// A failure on a loader thread, rethrown on the driving thread. After a failure (or once the
// driver stops) loaders deliver empty batches without loading, so nobody blocks forever.
struct LoaderFailure {
  std::mutex mutex;
  std::exception_ptr error;
  std::atomic<bool> stop{false};
};

}  // namespace

RunResult run_pipeline(const Options& o, const StageWork& work, GradientSync* sync,
                       std::int64_t mark_base) {
  const bool sleep_mode = o.cost == CostMode::sleep;
  const std::int64_t total = o.warmup_steps + o.steps;

  annotate::OrderedQueue<Batch> queue(o.queue_depth, mark_base);
  std::atomic<std::int64_t> next_index{0};
  LoaderFailure failure;
  std::vector<std::thread> loaders;
  for (std::int64_t t = 0; t < o.loader_threads; ++t) {
    loaders.emplace_back([&, t] {
      annotate::name_this_thread(("loader-" + std::to_string(t)).c_str());
      Pacer pacer(sleep_mode);
      pacer.restart();
      for (std::int64_t i = next_index++; i < total; i = next_index++) {
        Batch b;
        if (!failure.stop.load()) {
          try {
            b = load_batch(i, o, work, pacer);
          } catch (...) {
            std::lock_guard lock(failure.mutex);
            if (!failure.error) failure.error = std::current_exception();
            failure.stop.store(true);
          }
        }
        if (queue.put(i, std::move(b))) pacer.restart();  // blocked: a new deadline chain
      }
    });
  }

  RunResult result;
  std::vector<float> device = work.make_device_buffer();
  Pacer pacer(sleep_mode);
  pacer.restart();
  std::int64_t measured_start = monotonic_ns();
  std::exception_ptr error;
  std::int64_t taken = 0;  // batches taken from the queue
  for (std::int64_t step = 0; step < total; ++step) {
    if (step == o.warmup_steps) measured_start = monotonic_ns();
    Range step_range = annotate::step_range();
    Batch b;
    if (o.loader_threads == 0) {
      try {
        b = load_batch(step, o, work, pacer);
      } catch (...) {
        error = std::current_exception();
        break;
      }
    } else {
      auto taken_batch = queue.take();
      ++taken;
      b = std::move(taken_batch.item);
      if (taken_batch.blocked) pacer.restart();  // a new deadline chain after blocking
      std::lock_guard lock(failure.mutex);
      error = failure.error;
      if (error) break;
    }
    {
      Range r(Stage::h2d);
      work.h2d(b, device);
      pacer.spend_ms(o.h2d_ms);
    }
    {
      Range r(Stage::gpu_compute);
      result.checksum += work.compute(device);
      pacer.spend_ms(o.compute_ms + (step == 0 ? o.first_step_ms : 0.0));
    }
    if (sync != nullptr) {
      try {
        // As DDP's optimizer step: the previous step's gradients must be all-reduced.
        if (step > 0 && sync->wait(step - 1)) pacer.restart();
        sync->submit(step);
      } catch (...) {
        error = std::current_exception();
        break;
      }
    }
  }
  if (sync != nullptr && !error) {
    try {
      sync->wait(total - 1);
    } catch (...) {
      error = std::current_exception();
    }
  }
  const std::int64_t end = monotonic_ns();

  if (error) {
    failure.stop.store(true);  // loaders now put empty batches; take them all so puts finish
    if (o.loader_threads > 0) {
      for (; taken < total; ++taken) (void)queue.take();
    }
    for (auto& t : loaders) t.join();
    std::rethrow_exception(error);
  }
  for (auto& t : loaders) t.join();
  result.measured_steps = o.steps;
  result.wall_ns = end - measured_start;
  return result;
}

}  // namespace amdahl::cpu_pipeline
