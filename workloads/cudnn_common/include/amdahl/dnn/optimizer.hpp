// Parameters, SGD with momentum and weight decay, and fp16 dynamic loss scaling.
//
// ParamStore keeps every parameter in two flat groups so that one kernel updates each group:
//  - weights: used by convolutions in the storage type; fp32 master copy, a storage-type compute
//    copy (the master itself for fp32/tf32) and a storage-type gradient;
//  - fp32 params (batch-norm scale/bias, fully connected weights/bias): fp32 values and gradients.
// Every layer must overwrite its gradients in each backward pass.
//
// LossScaler keeps its state on the device (no host sync per step): the loss kernel reads the
// scale, check() flags non-finite gradients, the SGD step skips a flagged step and unscales
// otherwise, update() halves the scale after an overflow and doubles it after `growth_interval`
// clean steps (as torch.cuda.amp.GradScaler does).
#pragma once

#include "amdahl/dnn/context.hpp"
#include "amdahl/dnn/tensor.hpp"

#include <cstddef>
#include <vector>

namespace amdahl::dnn {

struct ParamRef {
  bool weight = false;      // true: weights group, false: fp32 group
  std::size_t offset = 0;   // elements
  std::size_t count = 0;
};

class ParamStore {
 public:
  ParamRef add_weight(std::size_t count);
  ParamRef add_fp32(std::size_t count);
  // Allocates the groups (gradients and momenta zeroed). No add_* after this.
  void allocate(Context& ctx);
  bool allocated() const { return allocated_; }

  // Storage-type compute copy (weights) or fp32 values (fp32 group).
  void* value(const ParamRef& p) const;
  void* grad(const ParamRef& p) const;
  float* fp32(const ParamRef& p) const;       // fp32 group only
  float* fp32_grad(const ParamRef& p) const;  // fp32 group only
  float* master(const ParamRef& p) const;     // fp32 master of either group

  // Host <-> device for one parameter's fp32 master (upload refreshes the compute copy).
  void upload(Context& ctx, const ParamRef& p, const std::vector<float>& values);
  std::vector<float> download(Context& ctx, const ParamRef& p) const;
  std::vector<float> download_grad(Context& ctx, const ParamRef& p) const;  // as fp32

  std::size_t weight_elements() const { return weight_count_; }
  std::size_t fp32_elements() const { return fp32_count_; }
  std::size_t parameter_count() const { return weight_used_ + fp32_used_; }

  // Internals for the optimizer.
  float* weight_master() const { return w_master_.as<float>(); }
  void* weight_values() const;
  void* weight_grads() const { return w_grad_.get(); }
  float* weight_momenta() const { return w_mom_.as<float>(); }
  float* fp32_values() const { return f_val_.as<float>(); }
  float* fp32_grads() const { return f_grad_.as<float>(); }
  float* fp32_momenta() const { return f_mom_.as<float>(); }
  DType weight_type() const { return weight_type_; }

 private:
  void require_allocated() const;
  std::size_t weight_count_ = 0, fp32_count_ = 0;  // padded sizes
  std::size_t weight_used_ = 0, fp32_used_ = 0;     // real parameter counts
  bool allocated_ = false;
  DType weight_type_ = DType::f32;
  DeviceBuffer w_master_, w_copy_, w_grad_, w_mom_, f_val_, f_grad_, f_mom_;
};

class LossScaler {
 public:
  // enabled = false: a fixed scale of 1 and no checks (fp32, tf32, bf16).
  LossScaler(Context& ctx, bool enabled, float initial_scale = 65536.f, int growth_interval = 2000);
  bool enabled() const { return enabled_; }
  // Device pointer to the current scale (null when disabled, meaning 1).
  const float* scale_device() const;
  // Device pointer to the "skip this step" flag (null when disabled).
  const int* found_inf_device() const;
  void check(Context& ctx, const ParamStore& params);
  void update(Context& ctx);
  // Host reads (synchronize the stream).
  float scale(Context& ctx) const;
  int skipped_steps(Context& ctx) const;

  struct State {
    float scale;
    int found_inf;
    int good_steps;
    int skipped;
    int growth_interval;
  };
  // The whole device state (null when disabled), for the optimizer kernel.
  const State* state_device() const { return enabled_ ? state_.as<State>() : nullptr; }

 private:
  bool enabled_;
  DeviceBuffer state_;
};

class SgdMomentum {
 public:
  SgdMomentum(float momentum, float weight_decay) : momentum_(momentum), weight_decay_(weight_decay) {}
  // w -= lr * v with v = mu * v + (g / scale + wd * w); skipped when the scaler flagged overflow.
  void step(Context& ctx, ParamStore& params, float lr, const LossScaler& scaler) const;

 private:
  float momentum_, weight_decay_;
};

}  // namespace amdahl::dnn
