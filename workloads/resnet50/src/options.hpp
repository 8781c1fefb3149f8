// Command-line options of the resnet50 workload.
#pragma once

#include "amdahl/dnn/dtype.hpp"

#include <cstdint>
#include <string>

namespace amdahl::resnet {

enum class DataSource { device, host };

struct Options {
  dnn::Precision precision = dnn::Precision::fp32;
  int batch_size = 128;
  int steps = 50;          // timed steps
  int warmup_steps = 10;   // untimed steps before them
  DataSource data = DataSource::device;
  bool pinned = false;
  float lr = 0.01f;
  int image = 224;
  int classes = 1000;
  std::uint64_t seed = 1;
  bool quiet = false;
};

// Parses argv; on --help or a usage error prints to stdout/stderr and returns the exit code to
// use (0 or 1) in `exit_code`, with the function returning false.
bool parse_options(int argc, char** argv, Options& out, int& exit_code);

}  // namespace amdahl::resnet
