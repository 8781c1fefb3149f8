// Builds the one-line error messages thrown by the AMDAHL_CUDA/CUDNN/CUBLAS macros.
#include "amdahl/dnn/check.hpp"

namespace amdahl::dnn {
namespace {
std::string where(const char* expr, const char* file, int line) {
  return std::string(expr) + " at " + file + ":" + std::to_string(line);
}
}  // namespace

void throw_cuda(cudaError_t status, const char* expr, const char* file, int line) {
  throw DnnError("CUDA error " + std::string(cudaGetErrorName(status)) + " (" +
                 cudaGetErrorString(status) + ") in " + where(expr, file, line));
}

void throw_cudnn(cudnnStatus_t status, const char* expr, const char* file, int line) {
  char detail[512] = {0};
  cudnnGetLastErrorString(detail, sizeof(detail));
  std::string msg = "cuDNN error " + std::string(cudnnGetErrorString(status)) + " in " +
                    where(expr, file, line);
  if (detail[0] != '\0') msg += " [" + std::string(detail) + "]";
  throw DnnError(msg);
}

void throw_cublas(cublasStatus_t status, const char* expr, const char* file, int line) {
  throw DnnError("cuBLAS error " + std::string(cublasGetStatusName(status)) + " (" +
                 cublasGetStatusString(status) + ") in " + where(expr, file, line));
}

}  // namespace amdahl::dnn
