// Launchers of the batch-norm kernels (NHWC viewed as M = N*H*W rows of C channels, fp32
// accumulation). Internal to amdahl_dnn; the BatchNorm class in batch_norm.cpp drives them.
//   forward:  stats (per-block partial sums) -> finalize (mean, inv std, running stats, the
//             per-channel scale/shift) -> apply (y = x*scale + shift [+ residual] [ReLU]);
//   backward: stats (partial sums of dy and dy*(x-mean), dy masked by ReLU on request) ->
//             finalize (dgamma, dbeta, per-channel dx coefficients) -> dx.
#pragma once

#include "amdahl/dnn/dtype.hpp"

#include <cuda_runtime.h>

#include <cstddef>

namespace amdahl::dnn::detail {

// Launch geometry: vec channels per thread load, a block of bx (channel vectors) x by (rows)
// threads, a grid of gx (channel tiles) x gy (row slices). Partial sums take 2 * gy * C floats.
struct BnGeometry {
  int vec = 1, bx = 1, by = 1, gx = 1, gy = 1;
};

// vec is 16 bytes' worth of elements, or 1 when C is not a multiple of that.
BnGeometry bn_geometry(long long rows, int channels, int vec, int sm_count);
// Widest vector width usable for channels C of type t (1 or 16 / sizeof(t)).
int bn_vector_width(DType t, int channels);

struct BnForwardArgs {
  DType type;
  long long rows;
  int channels;
  const void* x;
  void* y;
  const void* residual;  // added before the ReLU when add_relu
  bool relu, add_residual;
  const float *gamma, *beta;
  float *running_mean, *running_var, *save_mean, *save_inv_std;
  float* partial;        // 2 * gy * C floats
  float* scale_shift;    // 2 * C floats
  double eps, momentum;
};
void bn_forward_launch(const BnForwardArgs& a, const BnGeometry& g, cudaStream_t stream);

struct BnBackwardArgs {
  DType type;
  long long rows;
  int channels;
  const void* x;
  const void* dy;
  const void* relu_output;  // non-null: dy is masked by (relu_output > 0)
  void* dx;
  const float *gamma, *save_mean, *save_inv_std;
  float *dgamma, *dbeta;
  float* partial;  // 2 * gy * C floats
  float* coef;     // 3 * C floats
};
void bn_backward_launch(const BnBackwardArgs& a, const BnGeometry& g, cudaStream_t stream);

}  // namespace amdahl::dnn::detail
