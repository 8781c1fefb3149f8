// Command-line options of cpu_pipeline and their parser (pure: no I/O, throws OptionsError).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace amdahl::cpu_pipeline {

enum class CostMode { sleep, work };

struct Options {
  std::int64_t steps = 50;
  std::int64_t warmup_steps = 2;
  std::int64_t batch_size = 32;
  double io_ms = 5.0;
  double preprocess_ms = 10.0;
  double h2d_ms = 3.0;
  double compute_ms = 12.0;
  double first_step_ms = 0.0;  // extra gpu_compute time in the first step (start-up: autotuning)
  std::int64_t loader_threads = 0;
  std::int64_t queue_depth = 4;
  CostMode cost = CostMode::sleep;
  std::string data_dir;  // empty: a temporary directory, created and removed
  // Data parallel (rank_launch.hpp, gradient_sync.hpp). ranks 0: one process, no communication,
  // unless a launcher's RANK/WORLD_SIZE (or MPI's) are set; N >= 1: this process forks N ranks.
  std::int64_t ranks = 0;
  double comm_ms = 2.0;                 // fixed cost of each all-reduce (latency, launch, sync)
  std::int64_t comm_bytes = 4 << 20;    // gradient bytes all-reduced per step
  double comm_gbps = 2.0;               // ring link bandwidth, GB/s (1e9 bytes/s); 0: unpaced
  std::int64_t straggler_rank = -1;     // this rank's gpu_compute takes straggler_factor x
  double straggler_factor = 1.0;
  bool help = false;
};

// A bad command line; what() is the one line to print.
class OptionsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses argv[1..] (without the program name).
Options parse_options(const std::vector<std::string>& args);

const char* cost_mode_name(CostMode m) noexcept;

// The --help text.
std::string usage_text();

}  // namespace amdahl::cpu_pipeline
