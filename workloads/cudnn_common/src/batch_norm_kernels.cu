// Batch-norm kernels on NHWC data (rows of C contiguous channels): each thread owns `V`
// consecutive channels (one 16-byte load when V > 1) and walks rows with a grid stride, so the
// per-channel statistics stay in registers; blocks reduce over their rows in shared memory and
// write partial sums that a one-thread-per-channel finalize kernel combines in double.
#include "batch_norm_kernels.hpp"

#include "device_math.cuh"

#include <algorithm>
#include <type_traits>

namespace amdahl::dnn::detail {
namespace {

template <class T, int V>
struct alignas(sizeof(T) * V) VecPack {
  T v[V];
};

template <class T, int V>
__device__ __forceinline__ void load_f(const T* p, float (&out)[V]) {
  const VecPack<T, V> pk = *reinterpret_cast<const VecPack<T, V>*>(p);
#pragma unroll
  for (int k = 0; k < V; ++k) out[k] = to_f(pk.v[k]);
}

template <class T, int V>
__device__ __forceinline__ void store_f(T* p, const float (&in)[V]) {
  VecPack<T, V> pk;
#pragma unroll
  for (int k = 0; k < V; ++k) pk.v[k] = from_f<T>(in[k]);
  *reinterpret_cast<VecPack<T, V>*>(p) = pk;
}

// Sums a[V] and b[V] of every thread over threadIdx.y (blockDim.y a power of two) and writes
// the block's totals to partial[blockIdx.y * C + c] and partial[(gridDim.y + blockIdx.y) * C + c].
template <int V>
__device__ __forceinline__ void block_reduce_write(float (&a)[V], float (&b)[V], int c0, int C,
                                                   float* partial) {
  extern __shared__ float sh[];  // [blockDim.y][blockDim.x][2 * V]
  const int tx = threadIdx.x, ty = threadIdx.y, bx = blockDim.x;
  float* mine = sh + (static_cast<std::size_t>(ty) * bx + tx) * (2 * V);
#pragma unroll
  for (int k = 0; k < V; ++k) {
    mine[k] = a[k];
    mine[V + k] = b[k];
  }
  __syncthreads();
  for (int stride = blockDim.y / 2; stride > 0; stride >>= 1) {
    if (ty < stride) {
      const float* other = sh + (static_cast<std::size_t>(ty + stride) * bx + tx) * (2 * V);
#pragma unroll
      for (int k = 0; k < 2 * V; ++k) mine[k] += other[k];
    }
    __syncthreads();
  }
  if (ty == 0 && c0 < C) {
    float* ps = partial + static_cast<std::size_t>(blockIdx.y) * C + c0;
    float* pq = partial + static_cast<std::size_t>(gridDim.y + blockIdx.y) * C + c0;
#pragma unroll
    for (int k = 0; k < V; ++k) {
      ps[k] = mine[k];
      pq[k] = mine[V + k];
    }
  }
}

// Forward statistics: sums of (x - shift) and (x - shift)^2 with shift = x[row 0] (per channel),
// which keeps the fp32 sums free of cancellation when |mean| >> std.
template <class T, int V>
__global__ void bn_fwd_stats_kernel(const T* __restrict__ x, long long M, int C,
                                    float* __restrict__ partial) {
  const int c0 = (blockIdx.x * blockDim.x + threadIdx.x) * V;
  float s[V], q[V];
#pragma unroll
  for (int k = 0; k < V; ++k) s[k] = q[k] = 0.f;
  if (c0 < C) {
    float shift[V];
    load_f<T, V>(x + c0, shift);
    const long long step = static_cast<long long>(gridDim.y) * blockDim.y;
    for (long long r = static_cast<long long>(blockIdx.y) * blockDim.y + threadIdx.y; r < M;
         r += step) {
      float v[V];
      load_f<T, V>(x + r * C + c0, v);
#pragma unroll
      for (int k = 0; k < V; ++k) {
        const float d = v[k] - shift[k];
        s[k] += d;
        q[k] += d * d;
      }
    }
  }
  block_reduce_write<V>(s, q, c0, C, partial);
}

// Finalize kernels run with blockDim (32 channels, kFinRows): the kFinRows rows of threads split
// the gy partial sums of their channel (a few loads each, so a deep gy costs no long serial
// chain), sum in double, and reduce through shared memory; returns the totals to threadIdx.y 0.
constexpr int kFinRows = 32;

__device__ __forceinline__ void sum_partials(const float* __restrict__ partial, int gy, int C,
                                             int c, double& s, double& q) {
  __shared__ double sh_s[kFinRows][32], sh_q[kFinRows][32];
  const int tx = threadIdx.x, ty = threadIdx.y;
  double a = 0, b = 0;
  if (c < C) {
#pragma unroll 4
    for (int i = ty; i < gy; i += kFinRows) {
      a += partial[static_cast<std::size_t>(i) * C + c];
      b += partial[static_cast<std::size_t>(gy + i) * C + c];
    }
  }
  sh_s[ty][tx] = a;
  sh_q[ty][tx] = b;
  __syncthreads();
  for (int stride = kFinRows / 2; stride > 0; stride >>= 1) {
    if (ty < stride) {
      sh_s[ty][tx] += sh_s[ty + stride][tx];
      sh_q[ty][tx] += sh_q[ty + stride][tx];
    }
    __syncthreads();
  }
  s = sh_s[0][tx];
  q = sh_q[0][tx];
}

template <class T>
__global__ void bn_fwd_finalize_kernel(const T* __restrict__ x, const float* __restrict__ partial,
                                       int gy, long long M, int C, double eps, double momentum,
                                       const float* __restrict__ gamma,
                                       const float* __restrict__ beta, float* running_mean,
                                       float* running_var, float* save_mean, float* save_inv,
                                       float* scale_shift) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  double s = 0, q = 0;
  sum_partials(partial, gy, C, c, s, q);
  if (c >= C || threadIdx.y != 0) return;
  const double m = static_cast<double>(M);
  const double ms = s / m;
  double var = q / m - ms * ms;
  if (var < 0) var = 0;
  const double mean = static_cast<double>(to_f(x[c])) + ms;
  const double inv = 1.0 / sqrt(var + eps);
  save_mean[c] = static_cast<float>(mean);
  save_inv[c] = static_cast<float>(inv);
  const double unbiased = M > 1 ? var * m / (m - 1) : var;
  running_mean[c] = static_cast<float>((1 - momentum) * running_mean[c] + momentum * mean);
  running_var[c] = static_cast<float>((1 - momentum) * running_var[c] + momentum * unbiased);
  const double scale = static_cast<double>(gamma[c]) * inv;
  scale_shift[c] = static_cast<float>(scale);
  scale_shift[C + c] = static_cast<float>(static_cast<double>(beta[c]) - mean * scale);
}

// y = x * scale + shift [+ residual] [then max(., 0)].
template <class T, int V, bool RELU, bool RES>
__global__ void bn_apply_kernel(const T* __restrict__ x, T* __restrict__ y,
                                const T* __restrict__ res, const float* __restrict__ ss,
                                long long M, int C) {
  const int c0 = (blockIdx.x * blockDim.x + threadIdx.x) * V;
  if (c0 >= C) return;
  float scale[V], shift[V];
#pragma unroll
  for (int k = 0; k < V; ++k) {
    scale[k] = ss[c0 + k];
    shift[k] = ss[C + c0 + k];
  }
  const long long step = static_cast<long long>(gridDim.y) * blockDim.y;
  for (long long r = static_cast<long long>(blockIdx.y) * blockDim.y + threadIdx.y; r < M;
       r += step) {
    const long long off = r * C + c0;
    float v[V];
    load_f<T, V>(x + off, v);
#pragma unroll
    for (int k = 0; k < V; ++k) v[k] = fmaf(v[k], scale[k], shift[k]);
    if constexpr (RES) {
      float z[V];
      load_f<T, V>(res + off, z);
#pragma unroll
      for (int k = 0; k < V; ++k) v[k] += z[k];
    }
    if constexpr (RELU) {
#pragma unroll
      for (int k = 0; k < V; ++k) v[k] = fmaxf(v[k], 0.f);
    }
    store_f<T, V>(y + off, v);
  }
}

// Backward statistics: sums of g and g * (x - mean), g = dy (masked by relu_out > 0 if RELU).
template <class T, int V, bool RELU>
__global__ void bn_bwd_stats_kernel(const T* __restrict__ x, const T* __restrict__ dy,
                                    const T* __restrict__ yr, const float* __restrict__ mean,
                                    long long M, int C, float* __restrict__ partial) {
  const int c0 = (blockIdx.x * blockDim.x + threadIdx.x) * V;
  float s[V], q[V];
#pragma unroll
  for (int k = 0; k < V; ++k) s[k] = q[k] = 0.f;
  if (c0 < C) {
    float mu[V];
#pragma unroll
    for (int k = 0; k < V; ++k) mu[k] = mean[c0 + k];
    const long long step = static_cast<long long>(gridDim.y) * blockDim.y;
    for (long long r = static_cast<long long>(blockIdx.y) * blockDim.y + threadIdx.y; r < M;
         r += step) {
      const long long off = r * C + c0;
      float g[V], v[V];
      load_f<T, V>(dy + off, g);
      load_f<T, V>(x + off, v);
      if constexpr (RELU) {
        float o[V];
        load_f<T, V>(yr + off, o);
#pragma unroll
        for (int k = 0; k < V; ++k) g[k] = o[k] > 0.f ? g[k] : 0.f;
      }
#pragma unroll
      for (int k = 0; k < V; ++k) {
        s[k] += g[k];
        q[k] += g[k] * (v[k] - mu[k]);
      }
    }
  }
  block_reduce_write<V>(s, q, c0, C, partial);
}

// dgamma = inv * sum(g (x - mean)), dbeta = sum(g); dx = k1 * g + k2 * (x - mean) + k3 with
// k1 = gamma * inv, k2 = -k1 * inv * dgamma / M, k3 = -k1 * dbeta / M.
__global__ void bn_bwd_finalize_kernel(const float* __restrict__ partial, int gy, long long M,
                                       int C, const float* __restrict__ gamma,
                                       const float* __restrict__ save_inv, float* dgamma,
                                       float* dbeta, float* coef) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  double s = 0, q = 0;
  sum_partials(partial, gy, C, c, s, q);
  if (c >= C || threadIdx.y != 0) return;
  const double inv = save_inv[c];
  const double dg = q * inv;
  dgamma[c] = static_cast<float>(dg);
  dbeta[c] = static_cast<float>(s);
  const double m = static_cast<double>(M);
  const double k1 = static_cast<double>(gamma[c]) * inv;
  coef[c] = static_cast<float>(k1);
  coef[C + c] = static_cast<float>(-k1 * inv * dg / m);
  coef[2 * C + c] = static_cast<float>(-k1 * s / m);
}

template <class T, int V, bool RELU>
__global__ void bn_dx_kernel(const T* __restrict__ x, const T* __restrict__ dy,
                             const T* __restrict__ yr, const float* __restrict__ mean,
                             const float* __restrict__ coef, T* __restrict__ dx, long long M,
                             int C) {
  const int c0 = (blockIdx.x * blockDim.x + threadIdx.x) * V;
  if (c0 >= C) return;
  float mu[V], k1[V], k2[V], k3[V];
#pragma unroll
  for (int k = 0; k < V; ++k) {
    mu[k] = mean[c0 + k];
    k1[k] = coef[c0 + k];
    k2[k] = coef[C + c0 + k];
    k3[k] = coef[2 * C + c0 + k];
  }
  const long long step = static_cast<long long>(gridDim.y) * blockDim.y;
  for (long long r = static_cast<long long>(blockIdx.y) * blockDim.y + threadIdx.y; r < M;
       r += step) {
    const long long off = r * C + c0;
    float g[V], v[V];
    load_f<T, V>(dy + off, g);
    load_f<T, V>(x + off, v);
    if constexpr (RELU) {
      float o[V];
      load_f<T, V>(yr + off, o);
#pragma unroll
      for (int k = 0; k < V; ++k) g[k] = o[k] > 0.f ? g[k] : 0.f;
    }
#pragma unroll
    for (int k = 0; k < V; ++k) v[k] = fmaf(k1[k], g[k], fmaf(k2[k], v[k] - mu[k], k3[k]));
    store_f<T, V>(dx + off, v);
  }
}

// Calls f(std::integral_constant<int, V>) for V = 1 or the 16-byte vector width of T.
template <class T, class F>
void with_vec(int vec, F&& f) {
  constexpr int kWide = 16 / static_cast<int>(sizeof(T));
  if (vec == kWide) {
    f(std::integral_constant<int, kWide>{});
  } else if (vec == 1) {
    f(std::integral_constant<int, 1>{});
  } else {
    throw DnnError("batch norm: unsupported vector width " + std::to_string(vec));
  }
}

template <class F>
void with_bool(bool b, F&& f) {
  if (b) {
    f(std::true_type{});
  } else {
    f(std::false_type{});
  }
}

std::size_t reduce_smem(const BnGeometry& g) {
  return static_cast<std::size_t>(g.bx) * g.by * 2 * g.vec * sizeof(float);
}

}  // namespace

int bn_vector_width(DType t, int channels) {
  const int wide = 16 / static_cast<int>(dtype_size(t));
  return channels % wide == 0 ? wide : 1;
}

BnGeometry bn_geometry(long long rows, int channels, int vec, int sm_count) {
  BnGeometry g;
  g.vec = vec;
  const int cvec = channels / vec;
  int bx = 1;
  while (bx < cvec && bx < 32) bx *= 2;
  g.bx = bx;
  g.by = 256 / bx;
  g.gx = (cvec + bx - 1) / bx;
  const long long row_blocks = (rows + g.by - 1) / g.by;
  const long long want = std::max<long long>(1, static_cast<long long>(sm_count) * 8 / g.gx);
  g.gy = static_cast<int>(std::clamp<long long>(std::min(want, row_blocks), 1, 65535));
  return g;
}

void bn_forward_launch(const BnForwardArgs& a, const BnGeometry& g, cudaStream_t stream) {
  const dim3 block(static_cast<unsigned>(g.bx), static_cast<unsigned>(g.by));
  const dim3 grid(static_cast<unsigned>(g.gx), static_cast<unsigned>(g.gy));
  const int C = a.channels;
  const long long M = a.rows;
  dispatch(a.type, [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(a.x);
    with_vec<T>(g.vec, [&](auto vc) {
      constexpr int V = decltype(vc)::value;
      bn_fwd_stats_kernel<T, V><<<grid, block, reduce_smem(g), stream>>>(x, M, C, a.partial);
      AMDAHL_CHECK_LAUNCH();
      bn_fwd_finalize_kernel<T><<<(C + 31) / 32, dim3(32, kFinRows), 0, stream>>>(
          x, a.partial, g.gy, M, C, a.eps, a.momentum, a.gamma, a.beta, a.running_mean,
          a.running_var, a.save_mean, a.save_inv_std, a.scale_shift);
      AMDAHL_CHECK_LAUNCH();
      with_bool(a.relu, [&](auto relu) {
        with_bool(a.add_residual, [&](auto res) {
          bn_apply_kernel<T, V, decltype(relu)::value, decltype(res)::value>
              <<<grid, block, 0, stream>>>(x, static_cast<T*>(a.y),
                                           static_cast<const T*>(a.residual), a.scale_shift, M, C);
          AMDAHL_CHECK_LAUNCH();
        });
      });
    });
  });
}

void bn_backward_launch(const BnBackwardArgs& a, const BnGeometry& g, cudaStream_t stream) {
  const dim3 block(static_cast<unsigned>(g.bx), static_cast<unsigned>(g.by));
  const dim3 grid(static_cast<unsigned>(g.gx), static_cast<unsigned>(g.gy));
  const int C = a.channels;
  const long long M = a.rows;
  dispatch(a.type, [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(a.x);
    const T* dy = static_cast<const T*>(a.dy);
    const T* yr = static_cast<const T*>(a.relu_output);
    with_vec<T>(g.vec, [&](auto vc) {
      constexpr int V = decltype(vc)::value;
      with_bool(a.relu_output != nullptr, [&](auto relu) {
        constexpr bool R = decltype(relu)::value;
        bn_bwd_stats_kernel<T, V, R><<<grid, block, reduce_smem(g), stream>>>(
            x, dy, yr, a.save_mean, M, C, a.partial);
        AMDAHL_CHECK_LAUNCH();
        bn_bwd_finalize_kernel<<<(C + 31) / 32, dim3(32, kFinRows), 0, stream>>>(
            a.partial, g.gy, M, C, a.gamma, a.save_inv_std, a.dgamma, a.dbeta, a.coef);
        AMDAHL_CHECK_LAUNCH();
        bn_dx_kernel<T, V, R><<<grid, block, 0, stream>>>(x, dy, yr, a.save_mean, a.coef,
                                                          static_cast<T*>(a.dx), M, C);
        AMDAHL_CHECK_LAUNCH();
      });
    });
  });
}

}  // namespace amdahl::dnn::detail
