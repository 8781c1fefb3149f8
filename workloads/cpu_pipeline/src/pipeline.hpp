// Runs the training-like loop: warm-up plus measured steps, each one `step` range on the
// calling (driving) thread; batches are loaded inline (--loader-threads 0) or by loader threads
// through an OrderedQueue with produce/consume marks and wait ranges.
#pragma once

#include <cstdint>

#include "gradient_sync.hpp"
#include "options.hpp"
#include "stage_work.hpp"

namespace amdahl::cpu_pipeline {

struct RunResult {
  std::int64_t measured_steps = 0;
  std::int64_t wall_ns = 0;  // start of the first measured step to the end of the last
  double checksum = 0;       // sum of the compute results, so no work can be skipped
};

// Throws DatasetError when a loader cannot read the dataset. With `sync` (a rank of a
// data-parallel run) each step hands its gradients to the communication thread after
// gpu_compute, having first waited for the previous step's all-reduce; batch marks then start
// at `mark_base`.
RunResult run_pipeline(const Options& options, const StageWork& work,
                       GradientSync* sync = nullptr, std::int64_t mark_base = 0);

}  // namespace amdahl::cpu_pipeline
