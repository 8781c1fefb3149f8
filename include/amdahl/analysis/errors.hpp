// Typed errors of the analysis library; the CLI maps InputError to exit 2, UsageError to 1.
#pragma once

#include <stdexcept>

namespace amdahl::analysis {

// The profile cannot answer the question (no steps, unknown stage in --speedup, empty window).
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The profile has no step ranges and no stage ranges (an unannotated run). `amdahl report`
// then gives the GPU-only report when there are GPU records (gpu_only.hpp).
class NoRangesError : public InputError {
 public:
  using InputError::InputError;
};

// The request itself is malformed (factor <= 0, bad rule syntax on the command line).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace amdahl::analysis
