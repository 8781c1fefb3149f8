// Convolution layer on cuDNN's convolution API: descriptors, timed algorithm search with a
// process-wide per-shape cache, and the three passes. fp32 precision forbids TF32 (FMA math only).
#include "amdahl/dnn/conv2d.hpp"

#include "amdahl/dnn/check.hpp"
#include "conv_engines.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

namespace amdahl::dnn {
namespace {

// Largest workspace an algorithm may ask for; faster algorithms needing more are skipped.
constexpr std::size_t kMaxAlgoWorkspace = std::size_t{2} << 30;

std::map<std::string, ConvAlgos>& algo_cache() {
  static std::map<std::string, ConvAlgos> cache;
  return cache;
}
std::mutex& cache_mutex() {
  static std::mutex m;
  return m;
}

// Picks the fastest successful result; with fp32 precision only non-tensor-op math qualifies.
template <class Perf>
const Perf& pick(const std::vector<Perf>& perfs, int returned, bool strict_fp32, const char* pass,
                 const std::string& key) {
  const Perf* best = nullptr;
  for (int i = 0; i < returned; ++i) {
    const Perf& p = perfs[static_cast<std::size_t>(i)];
    if (p.status != CUDNN_STATUS_SUCCESS || p.memory > kMaxAlgoWorkspace) continue;
    if (strict_fp32 && (p.mathType == CUDNN_TENSOR_OP_MATH ||
                        p.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION))
      continue;
    if (best == nullptr || p.time < best->time) best = &p;
  }
  if (best == nullptr)
    throw DnnError(std::string("cuDNN found no usable ") + pass + " algorithm for conv " + key);
  return *best;
}

// AMDAHL_CONV_ENGINES: unset/0 = legacy cudnnFind only; 1 = also search backend engines and
// use one where it is faster; force = use the best engine plan even when slower (for tests).
enum class EngineMode { off, on, force };
EngineMode engine_mode() {
  const char* v = std::getenv("AMDAHL_CONV_ENGINES");
  if (v == nullptr) return EngineMode::off;
  if (std::strcmp(v, "1") == 0) return EngineMode::on;
  if (std::strcmp(v, "force") == 0) return EngineMode::force;
  return EngineMode::off;
}

// The backend engine plan for one pass when it beats the legacy algorithm's time, else null.
// Any cuDNN failure in the search means "no plan" (the legacy algorithm stays), with a note.
std::shared_ptr<const detail::EnginePlan> better_engine(Context& ctx, detail::ConvPass pass,
                                                        const detail::ConvGeometry& g,
                                                        float legacy_ms, const std::string& key) {
  try {
    auto plan = detail::search_conv_engine(ctx.cudnn(), ctx.stream(), pass, g, kMaxAlgoWorkspace);
    if (plan && (engine_mode() == EngineMode::force || plan->ms() < legacy_ms)) return std::shared_ptr<const detail::EnginePlan>(std::move(plan));
  } catch (const DnnError& e) {
    std::fprintf(stderr, "amdahl_dnn: note: engine search for conv %s failed, keeping cudnnFind's choice: %s\n",
                 key.c_str(), e.what());
  }
  return nullptr;
}

}  // namespace

std::size_t conv_algo_cache_size() {
  std::lock_guard lock(cache_mutex());
  return algo_cache().size();
}

Conv2d::Conv2d(Context& ctx, const ConvSpec& spec) : ctx_(ctx), spec_(spec) {
  const DType t = ctx.act_type();
  const Shape4& in = spec.input;
  if (in.n <= 0 || in.h <= 0 || in.w <= 0 || in.c <= 0 || spec.out_channels <= 0 ||
      spec.kernel <= 0 || spec.stride <= 0 || spec.pad < 0)
    throw DnnError("invalid conv spec for input " + in.str());
  out_ = Shape4{in.n, (in.h + 2 * spec.pad - spec.kernel) / spec.stride + 1,
                (in.w + 2 * spec.pad - spec.kernel) / spec.stride + 1, spec.out_channels};
  if (out_.h <= 0 || out_.w <= 0) throw DnnError("conv output is empty for input " + in.str());

  x_desc_ = TensorDesc(in, t);
  y_desc_ = TensorDesc(out_, t);
  AMDAHL_CUDNN(cudnnCreateFilterDescriptor(&w_desc_));
  AMDAHL_CUDNN(cudnnSetFilter4dDescriptor(w_desc_, cudnn_type(t), CUDNN_TENSOR_NHWC,
                                          spec.out_channels, in.c, spec.kernel, spec.kernel));
  AMDAHL_CUDNN(cudnnCreateConvolutionDescriptor(&conv_desc_));
  // Accumulate in fp32 for every storage type (pseudo-half / pseudo-bf16 configurations).
  AMDAHL_CUDNN(cudnnSetConvolution2dDescriptor(conv_desc_, spec.pad, spec.pad, spec.stride,
                                               spec.stride, 1, 1, CUDNN_CROSS_CORRELATION,
                                               CUDNN_DATA_FLOAT));
  const bool strict = ctx.precision() == Precision::fp32;
  const cudnnMathType_t search_math = strict ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH;
  set_math(search_math);

  const std::string key = cache_key();
  {
    std::lock_guard lock(cache_mutex());
    auto it = algo_cache().find(key);
    if (it != algo_cache().end()) {
      algos_ = it->second;
      ctx.reserve_workspace(algos_.workspace);
      return;
    }
  }

  cudnnHandle_t h = ctx.cudnn();
  int max_count = 0, returned = 0;
  // Forward.
  AMDAHL_CUDNN(cudnnGetConvolutionForwardAlgorithmMaxCount(h, &max_count));
  std::vector<cudnnConvolutionFwdAlgoPerf_t> fwd(static_cast<std::size_t>(max_count));
  AMDAHL_CUDNN(cudnnFindConvolutionForwardAlgorithm(h, x_desc_.get(), w_desc_, conv_desc_,
                                                    y_desc_.get(), max_count, &returned,
                                                    fwd.data()));
  const auto& f = pick(fwd, returned, strict, "forward", key);
  algos_.fwd = f.algo;
  algos_.fwd_math = strict ? CUDNN_FMA_MATH : f.mathType;
  algos_.workspace = f.memory;
  const float fwd_ms = f.time;
  // Backward data.
  float bwd_data_ms = 0.f;
  if (spec.need_dgrad) {
    AMDAHL_CUDNN(cudnnGetConvolutionBackwardDataAlgorithmMaxCount(h, &max_count));
    std::vector<cudnnConvolutionBwdDataAlgoPerf_t> bd(static_cast<std::size_t>(max_count));
    AMDAHL_CUDNN(cudnnFindConvolutionBackwardDataAlgorithm(h, w_desc_, y_desc_.get(), conv_desc_,
                                                           x_desc_.get(), max_count, &returned,
                                                           bd.data()));
    const auto& b = pick(bd, returned, strict, "backward-data", key);
    algos_.bwd_data = b.algo;
    algos_.bwd_data_math = strict ? CUDNN_FMA_MATH : b.mathType;
    algos_.workspace = std::max(algos_.workspace, b.memory);
    bwd_data_ms = b.time;
  }
  // Backward filter.
  AMDAHL_CUDNN(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(h, &max_count));
  std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> bf(static_cast<std::size_t>(max_count));
  AMDAHL_CUDNN(cudnnFindConvolutionBackwardFilterAlgorithm(h, x_desc_.get(), y_desc_.get(),
                                                           conv_desc_, w_desc_, max_count,
                                                           &returned, bf.data()));
  const auto& w = pick(bf, returned, strict, "backward-filter", key);
  algos_.bwd_filter = w.algo;
  algos_.bwd_filter_math = strict ? CUDNN_FMA_MATH : w.mathType;
  algos_.workspace = std::max(algos_.workspace, w.memory);

  if (engine_mode() != EngineMode::off) {
    const detail::ConvGeometry g{in, out_, spec.kernel, spec.stride, spec.pad, t, ctx.precision()};
    algos_.fwd_plan = better_engine(ctx, detail::ConvPass::fwd, g, fwd_ms, key);
    if (spec.need_dgrad)
      algos_.bwd_data_plan = better_engine(ctx, detail::ConvPass::bwd_data, g, bwd_data_ms, key);
    algos_.bwd_filter_plan = better_engine(ctx, detail::ConvPass::bwd_filter, g, w.time, key);
    for (const auto* p : {algos_.fwd_plan.get(), algos_.bwd_data_plan.get(),
                          algos_.bwd_filter_plan.get()})
      if (p != nullptr) algos_.workspace = std::max(algos_.workspace, p->workspace());
  }

  ctx.reserve_workspace(algos_.workspace);
  std::lock_guard lock(cache_mutex());
  algo_cache().emplace(key, algos_);
}

Conv2d::~Conv2d() {
  if (conv_desc_ != nullptr) cudnnDestroyConvolutionDescriptor(conv_desc_);
  if (w_desc_ != nullptr) cudnnDestroyFilterDescriptor(w_desc_);
}

std::size_t Conv2d::weight_count() const {
  return static_cast<std::size_t>(spec_.out_channels) * static_cast<std::size_t>(spec_.kernel) *
         static_cast<std::size_t>(spec_.kernel) * static_cast<std::size_t>(spec_.input.c);
}

std::string Conv2d::cache_key() const {
  return spec_.input.str() + " k=" + std::to_string(spec_.out_channels) + " r=" +
         std::to_string(spec_.kernel) + " s=" + std::to_string(spec_.stride) + " p=" +
         std::to_string(spec_.pad) + " dgrad=" + std::to_string(spec_.need_dgrad) + " " +
         to_string(ctx_.precision()) + " engines=" + std::to_string(static_cast<int>(engine_mode()));
}

void Conv2d::set_math(cudnnMathType_t m) const {
  AMDAHL_CUDNN(cudnnSetConvolutionMathType(conv_desc_, m));
}

void Conv2d::forward(const void* x, const void* w, void* y, float beta) const {
  if (algos_.fwd_plan && beta == 0.f) {
    algos_.fwd_plan->execute(ctx_.cudnn(), x, w, y, ctx_.workspace());
    return;
  }
  const float alpha = 1.f;
  set_math(algos_.fwd_math);
  AMDAHL_CUDNN(cudnnConvolutionForward(ctx_.cudnn(), &alpha, x_desc_.get(), x, w_desc_, w,
                                       conv_desc_, algos_.fwd, ctx_.workspace(),
                                       ctx_.workspace_bytes(), &beta, y_desc_.get(), y));
}

void Conv2d::backward_data(const void* dy, const void* w, void* dx, float beta) const {
  if (!spec_.need_dgrad) throw DnnError("Conv2d::backward_data on a layer built without dgrad");
  if (algos_.bwd_data_plan && beta == 0.f) {
    algos_.bwd_data_plan->execute(ctx_.cudnn(), dy, w, dx, ctx_.workspace());
    return;
  }
  const float alpha = 1.f;
  set_math(algos_.bwd_data_math);
  AMDAHL_CUDNN(cudnnConvolutionBackwardData(ctx_.cudnn(), &alpha, w_desc_, w, y_desc_.get(), dy,
                                            conv_desc_, algos_.bwd_data, ctx_.workspace(),
                                            ctx_.workspace_bytes(), &beta, x_desc_.get(), dx));
}

void Conv2d::backward_filter(const void* x, const void* dy, void* dw, float beta) const {
  if (algos_.bwd_filter_plan && beta == 0.f) {
    algos_.bwd_filter_plan->execute(ctx_.cudnn(), x, dy, dw, ctx_.workspace());
    return;
  }
  const float alpha = 1.f;
  set_math(algos_.bwd_filter_math);
  AMDAHL_CUDNN(cudnnConvolutionBackwardFilter(ctx_.cudnn(), &alpha, x_desc_.get(), x,
                                              y_desc_.get(), dy, conv_desc_, algos_.bwd_filter,
                                              ctx_.workspace(), ctx_.workspace_bytes(), &beta,
                                              w_desc_, dw));
}

}  // namespace amdahl::dnn
