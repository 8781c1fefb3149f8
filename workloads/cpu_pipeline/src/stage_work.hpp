// The real operations behind each stage (read item files, transform bytes to features, copy a
// batch into the "device" buffer, arithmetic on it) and their calibration for --cost work.
// With --cost sleep the stages do no work (the Pacer's sleep is the stage); with --cost work
// each stage repeats its unit of work the calibrated number of times.
#pragma once

#include <cstdint>
#include <vector>

#include "dataset.hpp"
#include "options.hpp"

namespace amdahl::cpu_pipeline {

struct Batch {
  std::vector<std::uint8_t> raw;   // batch_size items of kItemBytes, as read from disk
  std::vector<float> features;     // batch_size * kItemBytes floats after preprocessing
};

// How many units of work one batch does in each stage, and what a unit costs.
struct StagePlan {
  std::int64_t units = 1;
  double unit_ns = 0;  // measured at calibration (0 in sleep mode)
};

class StageWork {
 public:
  // In work mode, calibrates every stage with a non-zero cost (about 0.1 s each).
  StageWork(const Options& options, const Dataset& dataset);

  Batch make_batch() const;
  std::vector<float> make_device_buffer() const;

  void disk_io(std::int64_t batch_index, Batch& b) const;    // units: item file reads
  void preprocess(Batch& b) const;                           // units: items transformed
  void h2d(const Batch& b, std::vector<float>& device) const;  // units: batch copies
  double compute(std::vector<float>& device) const;          // units: passes over the batch

  const StagePlan& io_plan() const noexcept { return io_; }
  const StagePlan& preprocess_plan() const noexcept { return pre_; }
  const StagePlan& h2d_plan() const noexcept { return h2d_; }
  const StagePlan& compute_plan() const noexcept { return compute_; }

 private:
  void read_units(std::int64_t first_item, std::int64_t units, Batch& b) const;
  void transform_units(std::int64_t first_item, std::int64_t units, Batch& b) const;
  void copy_units(std::int64_t units, const Batch& b, std::vector<float>& device) const;
  double compute_units(std::int64_t units, std::vector<float>& device) const;

  const Options& options_;
  const Dataset& dataset_;
  std::size_t batch_items_;
  StagePlan io_, pre_, h2d_, compute_;
};

}  // namespace amdahl::cpu_pipeline
