// Batch normalization layer: parameter/statistics buffers, the choice of vector width (16-byte
// loads when C and every pointer allow it) and launch geometry, and the calls into
// batch_norm_kernels.cu.
#include "amdahl/dnn/batch_norm.hpp"

#include "amdahl/dnn/check.hpp"
#include "batch_norm_kernels.hpp"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace amdahl::dnn {
namespace {

bool aligned16(std::initializer_list<const void*> ptrs) {
  for (const void* p : ptrs)
    if (p != nullptr && reinterpret_cast<std::uintptr_t>(p) % 16 != 0) return false;
  return true;
}

long long rows_of(const Shape4& s) {
  return static_cast<long long>(s.n) * s.h * s.w;
}

}  // namespace

BatchNorm::BatchNorm(Context& ctx, Shape4 shape, double epsilon, double momentum)
    : ctx_(ctx), shape_(shape), eps_(epsilon), momentum_(momentum) {
  if (shape.n <= 0 || shape.h <= 0 || shape.w <= 0 || shape.c <= 0)
    throw DnnError("batch norm on an empty shape " + shape.str());
  if (!(epsilon > 0)) throw DnnError("batch norm epsilon must be positive");
  if (!(momentum >= 0 && momentum <= 1)) throw DnnError("batch norm momentum must be in [0, 1]");
  int device = 0;
  AMDAHL_CUDA(cudaGetDevice(&device));
  AMDAHL_CUDA(cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, device));
  const std::size_t C = static_cast<std::size_t>(shape.c);
  const std::size_t bytes = C * sizeof(float);
  running_mean_ = DeviceBuffer(bytes);
  running_var_ = DeviceBuffer(bytes);
  save_mean_ = DeviceBuffer(bytes);
  save_inv_var_ = DeviceBuffer(bytes);
  // Partial sums for the widest and the scalar geometry (the call's pointers pick one).
  const long long rows = rows_of(shape);
  const int wide = detail::bn_vector_width(ctx.act_type(), shape.c);
  const int gy = std::max(detail::bn_geometry(rows, shape.c, wide, sm_count_).gy,
                          detail::bn_geometry(rows, shape.c, 1, sm_count_).gy);
  partial_ = DeviceBuffer(2 * static_cast<std::size_t>(gy) * C * sizeof(float));
  coef_ = DeviceBuffer(3 * C * sizeof(float));
  const std::vector<float> zeros(C, 0.f);
  const std::vector<float> ones(C, 1.f);
  AMDAHL_CUDA(cudaMemcpy(running_mean_.get(), zeros.data(), bytes, cudaMemcpyHostToDevice));
  AMDAHL_CUDA(cudaMemcpy(running_var_.get(), ones.data(), bytes, cudaMemcpyHostToDevice));
  AMDAHL_CUDA(cudaMemcpy(save_mean_.get(), zeros.data(), bytes, cudaMemcpyHostToDevice));
  AMDAHL_CUDA(cudaMemcpy(save_inv_var_.get(), ones.data(), bytes, cudaMemcpyHostToDevice));
}

BatchNorm::~BatchNorm() = default;

void BatchNorm::forward_train(const void* x, void* y, const float* gamma, const float* beta,
                              BnActivation act, const void* residual) {
  if (x == nullptr || y == nullptr || gamma == nullptr || beta == nullptr)
    throw DnnError("BatchNorm::forward_train: null pointer");
  if (act == BnActivation::add_relu && residual == nullptr)
    throw DnnError("BatchNorm::forward_train: add_relu needs a residual");
  const bool add = act == BnActivation::add_relu;
  const long long rows = rows_of(shape_);
  const int wide = detail::bn_vector_width(ctx_.act_type(), shape_.c);
  const int vec = aligned16({x, y, add ? residual : nullptr}) ? wide : 1;
  const detail::BnGeometry g = detail::bn_geometry(rows, shape_.c, vec, sm_count_);
  detail::BnForwardArgs a{};
  a.type = ctx_.act_type();
  a.rows = rows;
  a.channels = shape_.c;
  a.x = x;
  a.y = y;
  a.residual = add ? residual : nullptr;
  a.relu = act != BnActivation::none;
  a.add_residual = add;
  a.gamma = gamma;
  a.beta = beta;
  a.running_mean = running_mean_.as<float>();
  a.running_var = running_var_.as<float>();
  a.save_mean = save_mean_.as<float>();
  a.save_inv_std = save_inv_var_.as<float>();
  a.partial = partial_.as<float>();
  a.scale_shift = coef_.as<float>();
  a.eps = eps_;
  a.momentum = momentum_;
  detail::bn_forward_launch(a, g, ctx_.stream());
}

void BatchNorm::backward(const void* x, const void* dy, void* dx, const float* gamma,
                         float* dgamma, float* dbeta, const void* relu_output) {
  if (x == nullptr || dy == nullptr || dx == nullptr || gamma == nullptr || dgamma == nullptr ||
      dbeta == nullptr)
    throw DnnError("BatchNorm::backward: null pointer");
  const long long rows = rows_of(shape_);
  const int wide = detail::bn_vector_width(ctx_.act_type(), shape_.c);
  const int vec = aligned16({x, dy, dx, relu_output}) ? wide : 1;
  const detail::BnGeometry g = detail::bn_geometry(rows, shape_.c, vec, sm_count_);
  detail::BnBackwardArgs a{};
  a.type = ctx_.act_type();
  a.rows = rows;
  a.channels = shape_.c;
  a.x = x;
  a.dy = dy;
  a.relu_output = relu_output;
  a.dx = dx;
  a.gamma = gamma;
  a.save_mean = save_mean_.as<float>();
  a.save_inv_std = save_inv_var_.as<float>();
  a.dgamma = dgamma;
  a.dbeta = dbeta;
  a.partial = partial_.as<float>();
  a.coef = coef_.as<float>();
  detail::bn_backward_launch(a, g, ctx_.stream());
}

}  // namespace amdahl::dnn
