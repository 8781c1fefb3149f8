// ParamStore allocation and host transfer, the SGD-momentum kernel (with unscaling and the
// storage-type copy), and the loss-scaler kernels.
#include "amdahl/dnn/optimizer.hpp"

#include "amdahl/dnn/elementwise.hpp"
#include "device_math.cuh"

#include <cmath>

namespace amdahl::dnn {
namespace {
using namespace detail;

constexpr std::size_t kAlign = 64;  // elements: keeps every parameter 128-byte aligned
std::size_t round_up(std::size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

template <class T>
__global__ void sgd_kernel(float* master, const T* grad, float* mom, T* copy, std::size_t n,
                           float lr, float mu, float wd, const LossScaler::State* state) {
  if (state != nullptr && state->found_inf != 0) return;
  const float inv_scale = state != nullptr ? 1.f / state->scale : 1.f;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const float w = master[i];
    const float g = to_f(grad[i]) * inv_scale + wd * w;
    const float v = mu * mom[i] + g;
    mom[i] = v;
    const float nw = w - lr * v;
    master[i] = nw;
    if (copy != nullptr) copy[i] = from_f<T>(nw);
  }
}

template <class T>
__global__ void nonfinite_kernel(const T* g, std::size_t n, LossScaler::State* state) {
  bool bad = false;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    bad |= !isfinite(to_f(g[i]));
  if (__syncthreads_or(bad) && threadIdx.x == 0) state->found_inf = 1;
}

__global__ void scaler_update_kernel(LossScaler::State* s) {
  if (s->found_inf != 0) {
    s->scale = fmaxf(s->scale * 0.5f, 1.f);
    s->good_steps = 0;
    s->skipped += 1;
  } else if (++s->good_steps >= s->growth_interval) {
    s->scale = fminf(s->scale * 2.f, 16777216.f);
    s->good_steps = 0;
  }
  s->found_inf = 0;
}

}  // namespace

// ---- ParamStore ----

ParamRef ParamStore::add_weight(std::size_t count) {
  if (allocated_) throw DnnError("ParamStore::add_weight after allocate");
  ParamRef r{true, weight_count_, count};
  weight_count_ += round_up(count);
  weight_used_ += count;
  return r;
}

ParamRef ParamStore::add_fp32(std::size_t count) {
  if (allocated_) throw DnnError("ParamStore::add_fp32 after allocate");
  ParamRef r{false, fp32_count_, count};
  fp32_count_ += round_up(count);
  fp32_used_ += count;
  return r;
}

void ParamStore::allocate(Context& ctx) {
  if (allocated_) return;
  weight_type_ = ctx.act_type();
  const std::size_t wbytes = weight_count_ * dtype_size(weight_type_);
  const std::size_t wn = std::max<std::size_t>(weight_count_, 1);
  const std::size_t fn = std::max<std::size_t>(fp32_count_, 1);
  w_master_ = DeviceBuffer(wn * sizeof(float));
  if (weight_type_ != DType::f32) w_copy_ = DeviceBuffer(std::max<std::size_t>(wbytes, 2));
  w_grad_ = DeviceBuffer(std::max<std::size_t>(wbytes, 4));
  w_mom_ = DeviceBuffer(wn * sizeof(float));
  f_val_ = DeviceBuffer(fn * sizeof(float));
  f_grad_ = DeviceBuffer(fn * sizeof(float));
  f_mom_ = DeviceBuffer(fn * sizeof(float));
  for (DeviceBuffer* b : {&w_master_, &w_copy_, &w_grad_, &w_mom_, &f_val_, &f_grad_, &f_mom_})
    if (b->get() != nullptr) AMDAHL_CUDA(cudaMemsetAsync(b->get(), 0, b->bytes(), ctx.stream()));
  ctx.synchronize();
  allocated_ = true;
}

void ParamStore::require_allocated() const {
  if (!allocated_) throw DnnError("ParamStore used before allocate()");
}

void* ParamStore::weight_values() const {
  return weight_type_ == DType::f32 ? w_master_.get() : w_copy_.get();
}

void* ParamStore::value(const ParamRef& p) const {
  require_allocated();
  if (!p.weight) return f_val_.as<float>() + p.offset;
  return static_cast<char*>(weight_values()) + p.offset * dtype_size(weight_type_);
}

void* ParamStore::grad(const ParamRef& p) const {
  require_allocated();
  if (!p.weight) return f_grad_.as<float>() + p.offset;
  return static_cast<char*>(w_grad_.get()) + p.offset * dtype_size(weight_type_);
}

float* ParamStore::fp32(const ParamRef& p) const {
  if (p.weight) throw DnnError("ParamStore::fp32 on a storage-type weight");
  return static_cast<float*>(value(p));
}

float* ParamStore::fp32_grad(const ParamRef& p) const {
  if (p.weight) throw DnnError("ParamStore::fp32_grad on a storage-type weight");
  return static_cast<float*>(grad(p));
}

float* ParamStore::master(const ParamRef& p) const {
  require_allocated();
  return p.weight ? w_master_.as<float>() + p.offset : f_val_.as<float>() + p.offset;
}

void ParamStore::upload(Context& ctx, const ParamRef& p, const std::vector<float>& values) {
  if (values.size() != p.count) throw DnnError("ParamStore::upload: size mismatch");
  AMDAHL_CUDA(cudaMemcpyAsync(master(p), values.data(), p.count * sizeof(float),
                              cudaMemcpyHostToDevice, ctx.stream()));
  if (p.weight && weight_type_ != DType::f32) {
    convert_from_f32(ctx, master(p), value(p), p.count);
  }
  ctx.synchronize();
}

std::vector<float> ParamStore::download(Context& ctx, const ParamRef& p) const {
  std::vector<float> out(p.count);
  AMDAHL_CUDA(cudaMemcpyAsync(out.data(), master(p), p.count * sizeof(float),
                              cudaMemcpyDeviceToHost, ctx.stream()));
  ctx.synchronize();
  return out;
}

std::vector<float> ParamStore::download_grad(Context& ctx, const ParamRef& p) const {
  std::vector<float> out(p.count);
  if (!p.weight || weight_type_ == DType::f32) {
    AMDAHL_CUDA(cudaMemcpyAsync(out.data(), grad(p), p.count * sizeof(float),
                                cudaMemcpyDeviceToHost, ctx.stream()));
    ctx.synchronize();
    return out;
  }
  DeviceBuffer tmp(p.count * sizeof(float));
  convert_to_f32(ctx, grad(p), tmp.as<float>(), p.count);
  AMDAHL_CUDA(cudaMemcpyAsync(out.data(), tmp.get(), p.count * sizeof(float),
                              cudaMemcpyDeviceToHost, ctx.stream()));
  ctx.synchronize();
  return out;
}

// ---- LossScaler ----

LossScaler::LossScaler(Context& ctx, bool enabled, float initial_scale, int growth_interval)
    : enabled_(enabled) {
  if (!enabled) return;
  state_ = DeviceBuffer(sizeof(State));
  const State init{initial_scale, 0, 0, 0, growth_interval};
  AMDAHL_CUDA(cudaMemcpyAsync(state_.get(), &init, sizeof(State), cudaMemcpyHostToDevice,
                              ctx.stream()));
  ctx.synchronize();
}

const float* LossScaler::scale_device() const {
  return enabled_ ? &state_.as<State>()->scale : nullptr;
}

const int* LossScaler::found_inf_device() const {
  return enabled_ ? &state_.as<State>()->found_inf : nullptr;
}

void LossScaler::check(Context& ctx, const ParamStore& params) {
  if (!enabled_) return;
  State* s = state_.as<State>();
  dispatch(params.weight_type(), [&](auto tag) {
    using T = decltype(tag);
    const std::size_t n = params.weight_elements();
    if (n > 0)
      nonfinite_kernel<T><<<grid_for(n), 256, 0, ctx.stream()>>>(
          static_cast<const T*>(params.weight_grads()), n, s);
  });
  AMDAHL_CHECK_LAUNCH();
  const std::size_t fn = params.fp32_elements();
  if (fn > 0)
    nonfinite_kernel<float><<<grid_for(fn), 256, 0, ctx.stream()>>>(params.fp32_grads(), fn, s);
  AMDAHL_CHECK_LAUNCH();
}

void LossScaler::update(Context& ctx) {
  if (!enabled_) return;
  scaler_update_kernel<<<1, 1, 0, ctx.stream()>>>(state_.as<State>());
  AMDAHL_CHECK_LAUNCH();
}

float LossScaler::scale(Context& ctx) const {
  if (!enabled_) return 1.f;
  State s{};
  AMDAHL_CUDA(cudaMemcpyAsync(&s, state_.get(), sizeof(State), cudaMemcpyDeviceToHost,
                              ctx.stream()));
  ctx.synchronize();
  return s.scale;
}

int LossScaler::skipped_steps(Context& ctx) const {
  if (!enabled_) return 0;
  State s{};
  AMDAHL_CUDA(cudaMemcpyAsync(&s, state_.get(), sizeof(State), cudaMemcpyDeviceToHost,
                              ctx.stream()));
  ctx.synchronize();
  return s.skipped;
}

// ---- SGD ----

void SgdMomentum::step(Context& ctx, ParamStore& params, float lr, const LossScaler& scaler) const {
  const LossScaler::State* state = scaler.state_device();
  dispatch(params.weight_type(), [&](auto tag) {
    using T = decltype(tag);
    const std::size_t n = params.weight_elements();
    T* copy = params.weight_type() == DType::f32 ? nullptr
                                                 : static_cast<T*>(params.weight_values());
    if (n > 0)
      sgd_kernel<T><<<grid_for(n), 256, 0, ctx.stream()>>>(
          params.weight_master(), static_cast<const T*>(params.weight_grads()),
          params.weight_momenta(), copy, n, lr, momentum_, weight_decay_, state);
  });
  AMDAHL_CHECK_LAUNCH();
  const std::size_t fn = params.fp32_elements();
  if (fn > 0)
    sgd_kernel<float><<<grid_for(fn), 256, 0, ctx.stream()>>>(
        params.fp32_values(), params.fp32_grads(), params.fp32_momenta(), nullptr, fn, lr,
        momentum_, weight_decay_, state);
  AMDAHL_CHECK_LAUNCH();
}

}  // namespace amdahl::dnn
