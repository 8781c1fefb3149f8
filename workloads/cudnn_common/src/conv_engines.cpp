// Backend-API convolution engine search: tensor/convolution/operation/graph descriptors for one
// NHWC pass, heuristics mode A, numerical-note filtering, plan finalization and timing.
#include "conv_engines.hpp"

#include "amdahl/dnn/check.hpp"

#include <cstdint>
#include <utility>
#include <vector>

namespace amdahl::dnn::detail {
namespace {

constexpr std::int64_t kUidA = 1, kUidB = 2, kUidOut = 3;

// RAII for one backend descriptor.
class Desc {
 public:
  explicit Desc(cudnnBackendDescriptorType_t t) { AMDAHL_CUDNN(cudnnBackendCreateDescriptor(t, &d_)); }
  ~Desc() {
    if (d_ != nullptr) cudnnBackendDestroyDescriptor(d_);
  }
  Desc(Desc&& o) noexcept : d_(std::exchange(o.d_, nullptr)) {}
  Desc& operator=(Desc&&) = delete;
  Desc(const Desc&) = delete;
  Desc& operator=(const Desc&) = delete;
  cudnnBackendDescriptor_t get() const { return d_; }
  cudnnBackendDescriptor_t* ptr() { return &d_; }
  cudnnBackendDescriptor_t release() { return std::exchange(d_, nullptr); }

 private:
  cudnnBackendDescriptor_t d_ = nullptr;
};

void set(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t n, cudnnBackendAttributeType_t t,
         std::int64_t count, const void* v) {
  AMDAHL_CUDNN(cudnnBackendSetAttribute(d, n, t, count, v));
}

// dims/strides in cuDNN's logical (N, C, H, W) order over NHWC memory.
Desc make_tensor(std::int64_t uid, cudnnDataType_t type, std::int64_t n, std::int64_t c,
                 std::int64_t h, std::int64_t w) {
  Desc t(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  const std::int64_t dims[4] = {n, c, h, w};
  const std::int64_t strides[4] = {h * w * c, 1, w * c, c};
  const std::int64_t align = 16;
  set(t.get(), CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type);
  set(t.get(), CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims);
  set(t.get(), CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides);
  set(t.get(), CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
  set(t.get(), CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align);
  AMDAHL_CUDNN(cudnnBackendFinalize(t.get()));
  return t;
}

Desc make_conv(const ConvGeometry& g) {
  Desc c(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
  const cudnnDataType_t comp = CUDNN_DATA_FLOAT;
  const cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  const std::int64_t dims = 2;
  const std::int64_t dil[2] = {1, 1};
  const std::int64_t str[2] = {g.stride, g.stride};
  const std::int64_t pad[2] = {g.pad, g.pad};
  set(c.get(), CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &comp);
  set(c.get(), CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode);
  set(c.get(), CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &dims);
  set(c.get(), CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, dil);
  set(c.get(), CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, str);
  set(c.get(), CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, pad);
  set(c.get(), CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, pad);
  AMDAHL_CUDNN(cudnnBackendFinalize(c.get()));
  return c;
}

// True when the engine config's numerical notes fit the precision.
bool notes_ok(cudnnBackendDescriptor_t cfg, Precision p) {
  Desc engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  std::int64_t n = 0;
  cudnnBackendDescriptor_t e = engine.get();
  if (cudnnBackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                               &n, &e) != CUDNN_STATUS_SUCCESS || n != 1)
    return false;
  cudnnBackendNumericalNote_t notes[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
  std::int64_t count = 0;
  if (cudnnBackendGetAttribute(e, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                               CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &count, notes) != CUDNN_STATUS_SUCCESS)
    return false;
  for (std::int64_t i = 0; i < count && i < CUDNN_NUMERICAL_NOTE_TYPE_COUNT; ++i) {
    if (notes[i] == CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS ||
        notes[i] == CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION)
      return false;
    if (p == Precision::fp32 && notes[i] == CUDNN_NUMERICAL_NOTE_TENSOR_CORE) return false;
  }
  return true;
}

Desc make_variant_pack(const void* a, const void* b, void* out, void* ws) {
  Desc vp(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  void* ptrs[3] = {const_cast<void*>(a), const_cast<void*>(b), out};
  const std::int64_t uids[3] = {kUidA, kUidB, kUidOut};
  set(vp.get(), CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, ptrs);
  set(vp.get(), CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids);
  set(vp.get(), CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws);
  AMDAHL_CUDNN(cudnnBackendFinalize(vp.get()));
  return vp;
}

// Elements of the pass's operands a, b and out (see EnginePlan::execute).
void operand_counts(ConvPass pass, const ConvGeometry& g, std::size_t (&n)[3]) {
  const std::size_t x = g.in.count(), y = g.out.count();
  const std::size_t w = static_cast<std::size_t>(g.out.c) * g.kernel * g.kernel * g.in.c;
  switch (pass) {
    case ConvPass::fwd: n[0] = x; n[1] = w; n[2] = y; break;
    case ConvPass::bwd_data: n[0] = y; n[1] = w; n[2] = x; break;
    case ConvPass::bwd_filter: n[0] = x; n[1] = y; n[2] = w; break;
  }
}

}  // namespace

EnginePlan::~EnginePlan() {
  if (plan_ != nullptr) cudnnBackendDestroyDescriptor(plan_);
}

void EnginePlan::execute(cudnnHandle_t h, const void* a, const void* b, void* out, void* ws) const {
  Desc vp = make_variant_pack(a, b, out, ws);
  AMDAHL_CUDNN(cudnnBackendExecute(h, plan_, vp.get()));
}

std::unique_ptr<EnginePlan> search_conv_engine(cudnnHandle_t h, cudaStream_t stream,
                                               ConvPass pass, const ConvGeometry& g,
                                               std::size_t max_workspace) {
  const cudnnDataType_t dt = cudnn_type(g.type);
  Desc x = make_tensor(pass == ConvPass::bwd_data ? kUidOut : kUidA, dt, g.in.n, g.in.c, g.in.h,
                       g.in.w);
  Desc w = make_tensor(pass == ConvPass::bwd_filter ? kUidOut : kUidB, dt, g.out.c, g.in.c,
                       g.kernel, g.kernel);
  Desc y = make_tensor(pass == ConvPass::fwd ? kUidOut : (pass == ConvPass::bwd_data ? kUidA : kUidB),
                       dt, g.out.n, g.out.c, g.out.h, g.out.w);
  Desc conv = make_conv(g);

  cudnnBackendDescriptorType_t op_type = CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR;
  cudnnBackendAttributeName_t a_x = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
                              a_w = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
                              a_y = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
                              a_conv = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
                              a_alpha = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
                              a_beta = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA;
  if (pass == ConvPass::bwd_data) {
    op_type = CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR;
    a_x = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX;
    a_w = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W;
    a_y = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY;
    a_conv = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC;
    a_alpha = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA;
    a_beta = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA;
  } else if (pass == ConvPass::bwd_filter) {
    op_type = CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR;
    a_x = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X;
    a_w = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW;
    a_y = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY;
    a_conv = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC;
    a_alpha = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA;
    a_beta = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA;
  }
  Desc op(op_type);
  const float alpha = 1.f, beta = 0.f;
  set(op.get(), a_x, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, x.ptr());
  set(op.get(), a_w, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, w.ptr());
  set(op.get(), a_y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, y.ptr());
  set(op.get(), a_conv, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, conv.ptr());
  set(op.get(), a_alpha, CUDNN_TYPE_FLOAT, 1, &alpha);
  set(op.get(), a_beta, CUDNN_TYPE_FLOAT, 1, &beta);
  AMDAHL_CUDNN(cudnnBackendFinalize(op.get()));

  Desc graph(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  set(graph.get(), CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, op.ptr());
  set(graph.get(), CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h);
  AMDAHL_CUDNN(cudnnBackendFinalize(graph.get()));

  Desc heur(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  const cudnnBackendHeurMode_t mode = CUDNN_HEUR_MODE_A;
  set(heur.get(), CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
      graph.ptr());
  set(heur.get(), CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode);
  AMDAHL_CUDNN(cudnnBackendFinalize(heur.get()));
  std::int64_t n_cfg = 0;
  AMDAHL_CUDNN(cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                        CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &n_cfg, nullptr));
  if (n_cfg <= 0) return nullptr;
  std::vector<Desc> cfgs;
  std::vector<cudnnBackendDescriptor_t> raw;
  for (std::int64_t i = 0; i < n_cfg; ++i) {
    cfgs.emplace_back(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    raw.push_back(cfgs.back().get());
  }
  std::int64_t got = 0;
  AMDAHL_CUDNN(cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                        CUDNN_TYPE_BACKEND_DESCRIPTOR, n_cfg, &got, raw.data()));

  std::size_t counts[3] = {0, 0, 0};
  operand_counts(pass, g, counts);
  const std::size_t esz = dtype_size(g.type);
  DeviceBuffer bufs[3] = {DeviceBuffer(counts[0] * esz), DeviceBuffer(counts[1] * esz),
                          DeviceBuffer(counts[2] * esz)};
  for (auto& b : bufs) AMDAHL_CUDA(cudaMemsetAsync(b.get(), 0, b.bytes(), stream));
  cudaEvent_t t0 = nullptr, t1 = nullptr;
  AMDAHL_CUDA(cudaEventCreate(&t0));
  AMDAHL_CUDA(cudaEventCreate(&t1));
  std::unique_ptr<EnginePlan> best;
  try {
    for (std::int64_t i = 0; i < got && i < n_cfg; ++i) {
      if (!notes_ok(raw[static_cast<std::size_t>(i)], g.precision)) continue;
      Desc plan(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
      set(plan.get(), CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &h);
      set(plan.get(), CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
          &raw[static_cast<std::size_t>(i)]);
      if (cudnnBackendFinalize(plan.get()) != CUDNN_STATUS_SUCCESS) continue;
      std::int64_t ws_size = 0, n = 0;
      if (cudnnBackendGetAttribute(plan.get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                   CUDNN_TYPE_INT64, 1, &n, &ws_size) != CUDNN_STATUS_SUCCESS ||
          ws_size < 0 || static_cast<std::size_t>(ws_size) > max_workspace)
        continue;
      DeviceBuffer ws(static_cast<std::size_t>(ws_size));
      Desc vp = make_variant_pack(bufs[0].get(), bufs[1].get(), bufs[2].get(), ws.get());
      // One untimed run (also rejects configs that fail at execution), then three timed.
      if (cudnnBackendExecute(h, plan.get(), vp.get()) != CUDNN_STATUS_SUCCESS) {
        AMDAHL_CUDA(cudaStreamSynchronize(stream));
        continue;
      }
      AMDAHL_CUDA(cudaEventRecord(t0, stream));
      bool ok = true;
      for (int r = 0; r < 3 && ok; ++r)
        ok = cudnnBackendExecute(h, plan.get(), vp.get()) == CUDNN_STATUS_SUCCESS;
      AMDAHL_CUDA(cudaEventRecord(t1, stream));
      AMDAHL_CUDA(cudaEventSynchronize(t1));
      if (!ok) continue;
      float ms = 0.f;
      AMDAHL_CUDA(cudaEventElapsedTime(&ms, t0, t1));
      ms /= 3.f;
      if (!best || ms < best->ms())
        best = std::make_unique<EnginePlan>(plan.release(), static_cast<std::size_t>(ws_size), ms);
    }
  } catch (...) {
    cudaEventDestroy(t0);
    cudaEventDestroy(t1);
    throw;
  }
  cudaEventDestroy(t0);
  cudaEventDestroy(t1);
  return best;
}

}  // namespace amdahl::dnn::detail
