// cuDNN backend (graph API) engine search for one convolution pass, the analogue of PyTorch's
// cudnn.benchmark: every engine config the heuristics (mode A) offer is finalized and timed, and
// the fastest one is kept as an execution plan. The legacy cudnnFind* only sees one engine per
// algorithm enum; the engine configs include native NHWC kernels it never tries. Internal to
// amdahl_dnn (used by conv2d.cpp when AMDAHL_CONV_ENGINES=1).
#pragma once

#include "amdahl/dnn/dtype.hpp"
#include "amdahl/dnn/tensor.hpp"

#include <cudnn.h>

#include <cstddef>
#include <memory>

namespace amdahl::dnn::detail {

enum class ConvPass { fwd, bwd_data, bwd_filter };

struct ConvGeometry {
  Shape4 in, out;
  int kernel = 1, stride = 1, pad = 0;
  DType type = DType::f32;
  Precision precision = Precision::fp32;
};

// A finalized execution plan for one pass with alpha = 1, beta = 0 (move-only).
class EnginePlan {
 public:
  EnginePlan(cudnnBackendDescriptor_t plan, std::size_t workspace, float ms)
      : plan_(plan), workspace_(workspace), ms_(ms) {}
  ~EnginePlan();
  EnginePlan(const EnginePlan&) = delete;
  EnginePlan& operator=(const EnginePlan&) = delete;

  std::size_t workspace() const { return workspace_; }
  float ms() const { return ms_; }
  // Runs the pass. fwd: (x, w, y); bwd_data: (dy, w, dx); bwd_filter: (x, dy, dw).
  void execute(cudnnHandle_t h, const void* a, const void* b, void* out, void* ws) const;

 private:
  cudnnBackendDescriptor_t plan_;
  std::size_t workspace_;
  float ms_;
};

// The fastest usable engine config for `pass`, timed on scratch buffers on `stream`, or null
// when none finalizes. Numerics are kept to the precision: no tensor cores (TF32) for fp32, and
// never down-converted inputs or reduced-precision reductions. Throws DnnError on CUDA errors.
std::unique_ptr<EnginePlan> search_conv_engine(cudnnHandle_t h, cudaStream_t stream,
                                               ConvPass pass, const ConvGeometry& g,
                                               std::size_t max_workspace);

}  // namespace amdahl::dnn::detail
