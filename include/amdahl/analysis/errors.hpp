// Typed errors of the analysis library; the CLI maps InputError to exit 2, UsageError to 1.
// Either may carry a Problem (problem.hpp): its code and values, worded outside the analysis
// (render/problem_text.hpp), so that no message of the analysis names a CLI flag. Without one,
// what() is the message.
#pragma once

#include <memory>
#include <stdexcept>
#include <utility>

#include "amdahl/analysis/problem.hpp"

namespace amdahl::analysis {

// What InputError and UsageError share: a message, or a typed problem (what(): its code).
class AnalysisError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  explicit AnalysisError(Problem problem)
      : std::runtime_error(problem_code(problem)), problem_(std::make_shared<const Problem>(std::move(problem))) {}
  // The typed problem; null when what() is the message.
  const Problem* problem() const noexcept { return problem_.get(); }

 private:
  std::shared_ptr<const Problem> problem_;
};

// The profile cannot answer the question (no steps, unknown stage in a what-if, empty window).
class InputError : public AnalysisError {
 public:
  using AnalysisError::AnalysisError;
};

// The profile has no step ranges and no stage ranges (an unannotated run). `amdahl report`
// then gives the GPU-only report when there are GPU records (gpu_only.hpp).
class NoRangesError : public InputError {
 public:
  using InputError::InputError;
};

// The request itself is malformed (factor <= 0, bad rule syntax on the command line, a stage
// given twice).
class UsageError : public AnalysisError {
 public:
  using AnalysisError::AnalysisError;
};

// The problem `error` carries (an InputError or UsageError with one), else null.
inline const Problem* problem_of(const std::exception& error) noexcept {
  const auto* e = dynamic_cast<const AnalysisError*>(&error);
  return e ? e->problem() : nullptr;
}

}  // namespace amdahl::analysis
