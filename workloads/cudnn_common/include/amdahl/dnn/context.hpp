// The per-workload GPU context: one stream, one cuDNN and one cuBLAS handle bound to it, the
// precision, and the one shared workspace that every layer uses (grown only during setup).
#pragma once

#include "amdahl/dnn/dtype.hpp"
#include "amdahl/dnn/tensor.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <cstddef>

namespace amdahl::dnn {

// Number of CUDA devices, 0 when there is none or the driver is unusable (never throws).
int cuda_device_count();

class Context {
 public:
  explicit Context(Precision precision, int device = 0);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  Precision precision() const { return precision_; }
  DType act_type() const { return storage_type(precision_); }
  cudaStream_t stream() const { return stream_; }
  cudnnHandle_t cudnn() const { return cudnn_; }
  cublasHandle_t cublas() const { return cublas_; }

  // Grows the shared workspace to at least `bytes` (synchronizes; call during setup only).
  void reserve_workspace(std::size_t bytes);
  void* workspace() const { return workspace_.get(); }
  std::size_t workspace_bytes() const { return workspace_.bytes(); }

  void synchronize() const;

 private:
  Precision precision_;
  cudaStream_t stream_ = nullptr;
  cudnnHandle_t cudnn_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  DeviceBuffer workspace_;
  DeviceBuffer cublas_workspace_;
};

}  // namespace amdahl::dnn
