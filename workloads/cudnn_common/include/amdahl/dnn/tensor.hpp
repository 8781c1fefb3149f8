// Device memory and NHWC tensors: an owning device buffer, a cuDNN tensor descriptor, and a
// Tensor that ties a shape and a data type to both. Move-only; no allocation after setup.
#pragma once

#include "amdahl/dnn/dtype.hpp"

#include <cudnn.h>

#include <cstddef>
#include <string>

namespace amdahl::dnn {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }
  template <class T>
  T* as() const { return static_cast<T*>(ptr_); }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

struct Shape4 {
  int n = 0, h = 0, w = 0, c = 0;
  std::size_t count() const {
    return static_cast<std::size_t>(n) * static_cast<std::size_t>(h) * static_cast<std::size_t>(w) *
           static_cast<std::size_t>(c);
  }
  std::string str() const;
  bool operator==(const Shape4& o) const { return n == o.n && h == o.h && w == o.w && c == o.c; }
};

// An NHWC cuDNN tensor descriptor (RAII).
class TensorDesc {
 public:
  TensorDesc() = default;
  TensorDesc(Shape4 shape, DType type);
  ~TensorDesc();
  TensorDesc(TensorDesc&& other) noexcept;
  TensorDesc& operator=(TensorDesc&& other) noexcept;
  TensorDesc(const TensorDesc&) = delete;
  TensorDesc& operator=(const TensorDesc&) = delete;
  cudnnTensorDescriptor_t get() const { return desc_; }

 private:
  cudnnTensorDescriptor_t desc_ = nullptr;
};

class Tensor {
 public:
  Tensor() = default;
  Tensor(Shape4 shape, DType type);
  const Shape4& shape() const { return shape_; }
  DType dtype() const { return type_; }
  std::size_t count() const { return shape_.count(); }
  std::size_t bytes() const { return shape_.count() * dtype_size(type_); }
  void* data() const { return buf_.get(); }
  cudnnTensorDescriptor_t desc() const { return desc_.get(); }

 private:
  Shape4 shape_{};
  DType type_ = DType::f32;
  DeviceBuffer buf_;
  TensorDesc desc_;
};

}  // namespace amdahl::dnn
