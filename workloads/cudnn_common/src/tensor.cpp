// Device buffers, NHWC tensor descriptors and tensors.
#include "amdahl/dnn/tensor.hpp"

#include "amdahl/dnn/check.hpp"

#include <utility>

namespace amdahl::dnn {

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  if (bytes > 0) {
    const cudaError_t st = cudaMalloc(&ptr_, bytes);
    if (st != cudaSuccess) {
      ptr_ = nullptr;
      throw DnnError("cudaMalloc of " + std::to_string(bytes) + " bytes failed: " +
                     cudaGetErrorString(st));
    }
  }
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_ != nullptr) cudaFree(ptr_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (ptr_ != nullptr) cudaFree(ptr_);
    ptr_ = std::exchange(other.ptr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

std::string Shape4::str() const {
  return "[n=" + std::to_string(n) + " h=" + std::to_string(h) + " w=" + std::to_string(w) +
         " c=" + std::to_string(c) + "]";
}

TensorDesc::TensorDesc(Shape4 shape, DType type) {
  AMDAHL_CUDNN(cudnnCreateTensorDescriptor(&desc_));
  AMDAHL_CUDNN(cudnnSetTensor4dDescriptor(desc_, CUDNN_TENSOR_NHWC, cudnn_type(type), shape.n,
                                          shape.c, shape.h, shape.w));
}

TensorDesc::~TensorDesc() {
  if (desc_ != nullptr) cudnnDestroyTensorDescriptor(desc_);
}

TensorDesc::TensorDesc(TensorDesc&& other) noexcept : desc_(std::exchange(other.desc_, nullptr)) {}

TensorDesc& TensorDesc::operator=(TensorDesc&& other) noexcept {
  if (this != &other) {
    if (desc_ != nullptr) cudnnDestroyTensorDescriptor(desc_);
    desc_ = std::exchange(other.desc_, nullptr);
  }
  return *this;
}

Tensor::Tensor(Shape4 shape, DType type)
    : shape_(shape), type_(type), buf_(shape.count() * dtype_size(type)), desc_(shape, type) {}

}  // namespace amdahl::dnn
