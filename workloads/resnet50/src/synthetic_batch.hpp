// Synthetic ImageNet-shaped batches: either one batch generated on the GPU and reused every
// step (--data device), or a fresh batch generated on the host each step (the cpu_preprocess
// stage: pseudo-random pixels converted to the storage type) and copied to the GPU (h2d) from a
// pinned or pageable buffer (--data host).
#pragma once

#include "amdahl/dnn/context.hpp"
#include "amdahl/dnn/tensor.hpp"

#include <cstdint>
#include <memory>
#include <vector>

namespace amdahl::resnet {

class SyntheticBatch {
 public:
  SyntheticBatch(dnn::Context& ctx, dnn::Shape4 shape, int classes, bool host, bool pinned,
                 std::uint64_t seed);
  ~SyntheticBatch();
  SyntheticBatch(const SyntheticBatch&) = delete;
  SyntheticBatch& operator=(const SyntheticBatch&) = delete;

  // Host data only: fills the host buffer for step `step` (CPU work).
  void prepare_on_host(std::uint64_t step);
  // Host data only: enqueues the copy of the host buffer to the device batch.
  void copy_to_device();

  const void* images() const { return images_.data(); }
  const int* labels() const { return labels_.as<int>(); }

 private:
  dnn::Context& ctx_;
  dnn::Shape4 shape_;
  int classes_;
  bool host_, pinned_;
  std::uint64_t seed_;
  dnn::Tensor images_;
  dnn::DeviceBuffer labels_;
  void* host_images_ = nullptr;  // storage-type pixels
  int* host_labels_ = nullptr;
  std::vector<unsigned char> pageable_;  // backing store when not pinned
};

}  // namespace amdahl::resnet
