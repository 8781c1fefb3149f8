// Error checking for CUDA runtime, cuDNN and cuBLAS calls. Every call goes through one of these
// macros, which throw amdahl::dnn::DnnError naming the call, file:line and the library's status.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <stdexcept>
#include <string>

namespace amdahl::dnn {

// Any failure of the GPU libraries, or a configuration the layer library does not support.
class DnnError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void throw_cuda(cudaError_t status, const char* expr, const char* file, int line);
[[noreturn]] void throw_cudnn(cudnnStatus_t status, const char* expr, const char* file, int line);
[[noreturn]] void throw_cublas(cublasStatus_t status, const char* expr, const char* file, int line);

}  // namespace amdahl::dnn

#define AMDAHL_CUDA(expr)                                                       \
  do {                                                                          \
    const cudaError_t amdahl_status_ = (expr);                                  \
    if (amdahl_status_ != cudaSuccess)                                          \
      ::amdahl::dnn::throw_cuda(amdahl_status_, #expr, __FILE__, __LINE__);     \
  } while (0)

#define AMDAHL_CUDNN(expr)                                                      \
  do {                                                                          \
    const cudnnStatus_t amdahl_status_ = (expr);                                \
    if (amdahl_status_ != CUDNN_STATUS_SUCCESS)                                 \
      ::amdahl::dnn::throw_cudnn(amdahl_status_, #expr, __FILE__, __LINE__);    \
  } while (0)

#define AMDAHL_CUBLAS(expr)                                                     \
  do {                                                                          \
    const cublasStatus_t amdahl_status_ = (expr);                               \
    if (amdahl_status_ != CUBLAS_STATUS_SUCCESS)                                \
      ::amdahl::dnn::throw_cublas(amdahl_status_, #expr, __FILE__, __LINE__);   \
  } while (0)

// After a kernel launch: reports bad launch configurations at the launch site.
#define AMDAHL_CHECK_LAUNCH() AMDAHL_CUDA(cudaGetLastError())
