// Element-wise kernels: ReLU (+ residual add) forward/backward, add, conversions, synthetic fill.
// Loads and stores go through 16-byte packs where the length allows it.
#include "amdahl/dnn/elementwise.hpp"

#include "device_math.cuh"

namespace amdahl::dnn {
namespace {
using namespace detail;

template <class T>
struct alignas(16) Pack {
  static constexpr int kN = 16 / static_cast<int>(sizeof(T));
  T v[kN];
};

template <class T>
__global__ void add_relu_pack_kernel(Pack<T>* y, const Pack<T>* z, std::size_t packs) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < packs;
       i += std::size_t{gridDim.x} * blockDim.x) {
    Pack<T> a = y[i];
    const Pack<T> b = z[i];
#pragma unroll
    for (int k = 0; k < Pack<T>::kN; ++k) a.v[k] = from_f<T>(fmaxf(to_f(a.v[k]) + to_f(b.v[k]), 0.f));
    y[i] = a;
  }
}

template <class T>
__global__ void add_relu_kernel(T* y, const T* z, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    y[i] = from_f<T>(fmaxf(to_f(y[i]) + to_f(z[i]), 0.f));
}

template <class T>
__global__ void relu_backward_pack_kernel(const Pack<T>* y, Pack<T>* dy, std::size_t packs) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < packs;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const Pack<T> a = y[i];
    Pack<T> g = dy[i];
#pragma unroll
    for (int k = 0; k < Pack<T>::kN; ++k)
      if (!(to_f(a.v[k]) > 0.f)) g.v[k] = from_f<T>(0.f);
    dy[i] = g;
  }
}

template <class T>
__global__ void relu_backward_kernel(const T* y, T* dy, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    if (!(to_f(y[i]) > 0.f)) dy[i] = from_f<T>(0.f);
}

template <class T>
__global__ void add_kernel(T* y, const T* x, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    y[i] = from_f<T>(to_f(y[i]) + to_f(x[i]));
}

template <class T>
__global__ void from_f32_kernel(const float* s, T* d, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    d[i] = from_f<T>(s[i]);
}

template <class T>
__global__ void to_f32_kernel(const T* s, float* d, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    d[i] = to_f(s[i]);
}

__device__ __forceinline__ std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

template <class T>
__global__ void fill_kernel(T* p, std::size_t n, float lo, float hi, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const float u = static_cast<float>(mix64(seed * 0x9e3779b97f4a7c15ull + i) >> 40) *
                    (1.0f / 16777216.0f);
    p[i] = from_f<T>(lo + (hi - lo) * u);
  }
}

bool packable(const void* a, const void* b, std::size_t n, std::size_t elem) {
  const std::size_t per = 16 / elem;
  return n % per == 0 && reinterpret_cast<std::uintptr_t>(a) % 16 == 0 &&
         reinterpret_cast<std::uintptr_t>(b) % 16 == 0;
}

}  // namespace

void relu_forward(Context& ctx, void* y, std::size_t n) {
  // max(y, 0) is "zero where not positive": the backward mask applied to y itself.
  relu_backward(ctx, y, y, n);
}

void add_relu_forward(Context& ctx, void* y, const void* z, std::size_t n) {
  if (n == 0) return;
  dispatch(ctx.act_type(), [&](auto tag) {
    using T = decltype(tag);
    if (packable(y, z, n, sizeof(T))) {
      const std::size_t packs = n / Pack<T>::kN;
      add_relu_pack_kernel<T><<<grid_for(packs), 256, 0, ctx.stream()>>>(
          static_cast<Pack<T>*>(y), static_cast<const Pack<T>*>(z), packs);
    } else {
      add_relu_kernel<T><<<grid_for(n), 256, 0, ctx.stream()>>>(static_cast<T*>(y),
                                                               static_cast<const T*>(z), n);
    }
  });
  AMDAHL_CHECK_LAUNCH();
}

void relu_backward(Context& ctx, const void* y, void* dy, std::size_t n) {
  if (n == 0) return;
  dispatch(ctx.act_type(), [&](auto tag) {
    using T = decltype(tag);
    if (packable(y, dy, n, sizeof(T))) {
      const std::size_t packs = n / Pack<T>::kN;
      relu_backward_pack_kernel<T><<<grid_for(packs), 256, 0, ctx.stream()>>>(
          static_cast<const Pack<T>*>(y), static_cast<Pack<T>*>(dy), packs);
    } else {
      relu_backward_kernel<T><<<grid_for(n), 256, 0, ctx.stream()>>>(static_cast<const T*>(y),
                                                                    static_cast<T*>(dy), n);
    }
  });
  AMDAHL_CHECK_LAUNCH();
}

void add_inplace(Context& ctx, void* y, const void* x, std::size_t n) {
  if (n == 0) return;
  dispatch(ctx.act_type(), [&](auto tag) {
    using T = decltype(tag);
    add_kernel<T><<<grid_for(n), 256, 0, ctx.stream()>>>(static_cast<T*>(y),
                                                        static_cast<const T*>(x), n);
  });
  AMDAHL_CHECK_LAUNCH();
}

void convert_from_f32(Context& ctx, const float* src, void* dst, std::size_t n) {
  if (n == 0) return;
  dispatch(ctx.act_type(), [&](auto tag) {
    using T = decltype(tag);
    from_f32_kernel<T><<<grid_for(n), 256, 0, ctx.stream()>>>(src, static_cast<T*>(dst), n);
  });
  AMDAHL_CHECK_LAUNCH();
}

void convert_to_f32(Context& ctx, const void* src, float* dst, std::size_t n) {
  if (n == 0) return;
  dispatch(ctx.act_type(), [&](auto tag) {
    using T = decltype(tag);
    to_f32_kernel<T><<<grid_for(n), 256, 0, ctx.stream()>>>(static_cast<const T*>(src), dst, n);
  });
  AMDAHL_CHECK_LAUNCH();
}

void fill_uniform(Context& ctx, void* p, std::size_t n, float lo, float hi, std::uint64_t seed) {
  if (n == 0) return;
  dispatch(ctx.act_type(), [&](auto tag) {
    using T = decltype(tag);
    fill_kernel<T><<<grid_for(n), 256, 0, ctx.stream()>>>(static_cast<T*>(p), n, lo, hi, seed);
  });
  AMDAHL_CHECK_LAUNCH();
}

}  // namespace amdahl::dnn
