// Exposed, total and hidden time per stage over the analysis window. Exposed time is the
// driving thread's view: its own stage time, plus its waits charged to the work waited on —
// `wait` ranges through produce/consume marks to the producer's stages for that item (or, with
// no link, to the other threads' stages in proportion to their totals: a bound), and blocking
// CUDA syncs outside any stage to the stages of the GPU ops running meanwhile.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "amdahl/analysis/gpu_attribution.hpp"
#include "amdahl/analysis/steps.hpp"
#include "amdahl/analysis/timeline.hpp"

namespace amdahl::analysis {

// A split of some time over stages: (index, weight) with weights summing to 1; index
// stage_names.size() means `other`.
using Charge = std::vector<std::pair<std::size_t, double>>;

struct WaitAccounting {
  std::size_t wait_ranges = 0;     // amdahl `wait` ranges met on the driving thread
  std::size_t linked_waits = 0;    // of which linked to a producer through marks
  double linked_ns = 0;            // wait time charged through produce/consume links
  double fallback_ns = 0;          // wait time charged in proportion to other threads (bound)
  double gpu_wait_ns = 0;          // blocking CUDA syncs charged to the GPU ops' stages
  double unattributed_ns = 0;      // wait time with nothing to charge: counted as `other`
};

struct Exposure {
  std::size_t other_index = 0;                    // == stage_names.size()
  std::vector<double> total_ns;                   // per stage: all lanes, clipped to the window
  std::vector<double> exposed_ns;                 // per stage, then `other`; sums to the window
  std::vector<std::vector<double>> span_exposed;  // [span][stage or other]; each row sums to its span
  std::vector<double> span_ns;
  WaitAccounting waits;
  bool bounds = false;  // some wait was charged by the no-marks rule
};

Exposure compute_exposure(const Timeline& timeline, const StepSelection& selection,
                          const std::vector<GpuOpStage>& gpu_op_stages);

// How the producer spent the time between its previous `produce` and `produce` at `ts_ns` on
// `lane` (its waits excluded). Empty when it spent none.
Charge producer_charge(const Timeline& timeline, std::size_t lane, std::size_t produce_index);

}  // namespace amdahl::analysis
