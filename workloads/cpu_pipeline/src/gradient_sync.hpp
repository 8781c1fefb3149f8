// The data-parallel part of cpu_pipeline: a communication thread that all-reduces each step's
// gradients over the ring (ring_allreduce.hpp) inside a `communication` range (int64 payload:
// the bytes all-reduced), overlapped with the next step as DDP overlaps its buckets with
// backward; the driving thread waits for step i's all-reduce before finishing step i + 1.
// Hand-offs carry produce/consume marks (item ids unique per rank: ranks share one profile).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "options.hpp"
#include "rank_env.hpp"
#include "ring_allreduce.hpp"

namespace amdahl::cpu_pipeline {

// Item ids of the marks: kind 1 = gradients of a step handed to the communication thread,
// kind 2 = that step's all-reduce done; ids never collide across ranks or with batch ids.
std::int64_t sync_item_id(std::int64_t rank, int kind, std::int64_t step) noexcept;
// The item-id base of rank `rank`'s batch queue (kind 0).
std::int64_t batch_item_base(std::int64_t rank) noexcept;

class GradientSync {
 public:
  // Connects the ring (blocks until every rank is up) and starts the communication thread.
  GradientSync(const Options& options, const RankEnv& env, const std::string& rendezvous);
  ~GradientSync();
  GradientSync(const GradientSync&) = delete;
  GradientSync& operator=(const GradientSync&) = delete;

  // Driving thread: step `step`'s gradients are ready (steps in order, from 0).
  void submit(std::int64_t step);
  // Driving thread: blocks (in a `wait` range) until step `step`'s all-reduce is done; returns
  // whether it blocked. Rethrows a failure of the communication thread.
  bool wait(std::int64_t step);

 private:
  void run();

  const Options& options_;
  RankEnv env_;
  Ring ring_;
  std::vector<float> gradients_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::int64_t submitted_ = 0;  // steps handed over
  std::int64_t done_ = 0;       // steps all-reduced
  bool stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace amdahl::cpu_pipeline
