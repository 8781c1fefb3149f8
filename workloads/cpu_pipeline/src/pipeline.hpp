// Runs the training-like loop: warm-up plus measured steps, each one `step` range on the
// calling (driving) thread; batches are loaded inline (--loader-threads 0) or by loader threads
// through an OrderedQueue with produce/consume marks and wait ranges.
#pragma once

#include <cstdint>

#include "options.hpp"
#include "stage_work.hpp"

namespace amdahl::cpu_pipeline {

struct RunResult {
  std::int64_t measured_steps = 0;
  std::int64_t wall_ns = 0;  // start of the first measured step to the end of the last
  double checksum = 0;       // sum of the compute results, so no work can be skipped
};

// Throws DatasetError when a loader cannot read the dataset.
RunResult run_pipeline(const Options& options, const StageWork& work);

}  // namespace amdahl::cpu_pipeline
