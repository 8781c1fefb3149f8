// The communication thread of a rank (gradient_sync.hpp).
#include "gradient_sync.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "amdahl/annotate/stages.hpp"
#include "pacing.hpp"

namespace amdahl::cpu_pipeline {

std::int64_t sync_item_id(std::int64_t rank, int kind, std::int64_t step) noexcept {
  return ((rank + 1) << 40) | (static_cast<std::int64_t>(kind) << 36) | step;
}

std::int64_t batch_item_base(std::int64_t rank) noexcept { return sync_item_id(rank, 0, 0); }

GradientSync::GradientSync(const Options& options, const RankEnv& env,
                           const std::string& rendezvous)
    : options_(options),
      env_(env),
      ring_(rendezvous, static_cast<int>(env.rank), static_cast<int>(env.world_size)),
      gradients_(static_cast<std::size_t>(std::max<std::int64_t>(options.comm_bytes / 4, 1)),
                 0.0f) {
  thread_ = std::thread([this] { run(); });
}

GradientSync::~GradientSync() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void GradientSync::submit(std::int64_t step) {
  {
    std::lock_guard lock(mutex_);
    annotate::produce(sync_item_id(env_.rank, 1, step));
    submitted_ = step + 1;
  }
  cv_.notify_all();
}

bool GradientSync::wait(std::int64_t step) {
  std::unique_lock lock(mutex_);
  bool blocked = false;
  {
    annotate::Range waiting = annotate::wait_range();
    while (done_ <= step && !error_) {
      blocked = true;
      cv_.wait(lock);
    }
  }
  if (error_) std::rethrow_exception(error_);
  annotate::consume(sync_item_id(env_.rank, 2, step));
  return blocked;
}

void GradientSync::run() {
  annotate::name_this_thread("communication");
  Pacer pacer(options_.cost == CostMode::sleep);
  const double bytes_per_s = options_.comm_gbps * 1e9;
  const auto world = static_cast<int>(env_.world_size);
  const std::size_t n = gradients_.size();
  try {
    for (std::int64_t step = 0;; ++step) {
      {
        std::unique_lock lock(mutex_);
        annotate::Range waiting = annotate::wait_range();
        cv_.wait(lock, [&] { return submitted_ > step || stop_; });
        if (submitted_ <= step) return;  // stopped
        annotate::consume(sync_item_id(env_.rank, 1, step));
      }
      // A probe per chunk: rank r contributes r + 1, so every rank must read W(W+1)/2.
      for (int c = 0; c < world; ++c) {
        const Chunk ch = ring_chunk(n, world, c);
        if (ch.end > ch.begin) gradients_[ch.begin] = static_cast<float>(env_.rank + 1);
      }
      {
        annotate::Range comm(annotate::Stage::communication,
                              static_cast<std::int64_t>(n * sizeof(float)));
        pacer.restart();
        pacer.spend_ms(options_.comm_ms);
        ring_.allreduce(gradients_, bytes_per_s);
      }
      const float expected = static_cast<float>(world) * static_cast<float>(world + 1) / 2.0f;
      for (int c = 0; c < world; ++c) {
        const Chunk ch = ring_chunk(n, world, c);
        if (ch.end > ch.begin && gradients_[ch.begin] != expected) {
          throw std::runtime_error("all-reduce gave a wrong sum at element " +
                                   std::to_string(ch.begin));
        }
      }
      {
        std::lock_guard lock(mutex_);
        annotate::produce(sync_item_id(env_.rank, 2, step));
        done_ = step + 1;
      }
      cv_.notify_all();
    }
  } catch (...) {
    std::lock_guard lock(mutex_);
    error_ = std::current_exception();
    cv_.notify_all();
  }
}

}  // namespace amdahl::cpu_pipeline
