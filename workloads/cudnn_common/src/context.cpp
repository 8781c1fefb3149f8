// GPU context: device selection, stream, library handles, shared workspace.
#include "amdahl/dnn/context.hpp"

#include "amdahl/dnn/check.hpp"

namespace amdahl::dnn {

int cuda_device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error
    return 0;
  }
  return n;
}

Context::Context(Precision precision, int device) : precision_(precision) {
  if (cuda_device_count() <= device)
    throw DnnError("no usable CUDA device " + std::to_string(device));
  AMDAHL_CUDA(cudaSetDevice(device));
  AMDAHL_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  AMDAHL_CUDNN(cudnnCreate(&cudnn_));
  AMDAHL_CUDNN(cudnnSetStream(cudnn_, stream_));
  AMDAHL_CUBLAS(cublasCreate(&cublas_));
  AMDAHL_CUBLAS(cublasSetStream(cublas_, stream_));
  // A fixed cuBLAS workspace keeps cuBLAS from allocating inside a step (and graph-capturable).
  cublas_workspace_ = DeviceBuffer(32u << 20);
  AMDAHL_CUBLAS(cublasSetWorkspace(cublas_, cublas_workspace_.get(), cublas_workspace_.bytes()));
  // fp32 means no TF32 anywhere; tf32 (and the fp32 GEMMs of fp16/bf16 runs) may use it.
  AMDAHL_CUBLAS(cublasSetMathMode(cublas_, precision == Precision::fp32
                                               ? CUBLAS_DEFAULT_MATH
                                               : CUBLAS_TF32_TENSOR_OP_MATH));
}

Context::~Context() {
  if (stream_ != nullptr) cudaStreamSynchronize(stream_);
  if (cublas_ != nullptr) cublasDestroy(cublas_);
  if (cudnn_ != nullptr) cudnnDestroy(cudnn_);
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

void Context::reserve_workspace(std::size_t bytes) {
  if (bytes <= workspace_.bytes()) return;
  synchronize();
  workspace_ = DeviceBuffer();
  workspace_ = DeviceBuffer(bytes);
}

void Context::synchronize() const { AMDAHL_CUDA(cudaStreamSynchronize(stream_)); }

}  // namespace amdahl::dnn
