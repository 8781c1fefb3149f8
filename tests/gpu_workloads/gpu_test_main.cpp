// doctest main for the GPU workload tests: exits 77 ("SKIPPED: no CUDA device") without a GPU.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "amdahl/dnn/context.hpp"

#include <cstdio>

int main(int argc, char** argv) {
  if (amdahl::dnn::cuda_device_count() == 0) {
    std::printf("SKIPPED: no CUDA device\n");
    return 77;
  }
  doctest::Context context(argc, argv);
  return context.run();
}
