// Hooks through which the CPU-only input pipeline reports its stages, blocked waits and the
// produce/consume hand-offs; the workload implements them with NVTX, tests record them.
#pragma once

#include <cstdint>

namespace amdahl::segmentation {

enum class Stage { disk_io, cpu_preprocess };

class PipelineObserver {
 public:
  virtual ~PipelineObserver() = default;
  virtual void thread_started(int /*loader_index*/) {}
  virtual void stage_begin(Stage /*stage*/) {}
  virtual void stage_end(Stage /*stage*/) {}
  // Around a put or take that has to block (queue full / empty).
  virtual void wait_begin() {}
  virtual void wait_end() {}
  // Called under the queue's lock when item `id` enters (produced) or leaves (consumed) it.
  virtual void produced(std::int64_t /*id*/) {}
  virtual void consumed(std::int64_t /*id*/) {}
};

}  // namespace amdahl::segmentation
