// Device-side helpers shared by the kernels: float conversion for each storage type, a dispatch
// from DType to the C++ type, and the launch geometry for grid-stride loops.
#pragma once

#include "amdahl/dnn/check.hpp"
#include "amdahl/dnn/dtype.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstddef>

namespace amdahl::dnn::detail {

__device__ __forceinline__ float to_f(float v) { return v; }
__device__ __forceinline__ float to_f(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }

template <class T>
__device__ __forceinline__ T from_f(float v);
template <>
__device__ __forceinline__ float from_f<float>(float v) { return v; }
template <>
__device__ __forceinline__ __half from_f<__half>(float v) { return __float2half_rn(v); }
template <>
__device__ __forceinline__ __nv_bfloat16 from_f<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

// Calls f(T{}) with T the C++ type of the storage type t.
template <class F>
void dispatch(DType t, F&& f) {
  switch (t) {
    case DType::f32: f(float{}); break;
    case DType::f16: f(__half{}); break;
    case DType::bf16: f(__nv_bfloat16{}); break;
  }
}

inline unsigned grid_for(std::size_t n, unsigned block = 256) {
  const std::size_t blocks = (n + block - 1) / block;
  return static_cast<unsigned>(std::clamp<std::size_t>(blocks, 1, 132 * 32));
}

}  // namespace amdahl::dnn::detail
