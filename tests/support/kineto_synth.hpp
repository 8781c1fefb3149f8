// Synthetic PyTorch profiler (Kineto) traces in the shape torch 2.x's export_chrome_trace writes
// (ph "X" events, cat cpu_op / user_annotation / cuda_runtime / kernel / gpu_memcpy, pid/tid,
// ts/dur in float microseconds, "M" process and thread names, deviceProperties), for the import
// rules of docs/reports.md ("amdahl import"): a training loop over a DataLoader.
//
// The loop (one iteration, times in microseconds): the DataLoader's __next__ (`fetch_us`; with
// workers a wait, inline it holds the batch's aten ops), aten::to (a pageable HtoD copy),
// aten::conv2d (nesting aten::convolution and a kernel launch), aten::cross_entropy_loss,
// backward() (`backward_us` with no range on the training thread, its ops on the autograd
// thread), Optimizer.zero_grad#SGD.zero_grad, Optimizer.step#SGD.step, a 100 us gap. Before the
// first iteration: `setup_us` of setup ops (model.to(device), ...), then the first __next__ of
// `first_fetch_us` (the workers starting).
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace amdahl::test {

struct SynthTrace {
  int workers = 4;                // 0: _SingleProcessDataLoaderIter, the loading inline
  int iterations = 6;             // optimizer steps
  bool profiler_steps = false;    // ProfilerStep#N ranges (prof.step() each iteration)
  bool optimizer = true;          // Optimizer.step / zero_grad ranges
  double setup_us = 300'000;      // before the first fetch
  double first_fetch_us = 1'200'000;
  double fetch_us = 30'000;       // each later __next__
  double backward_us = 4'000;
  int pid = 4242, tid = 4242, autograd_tid = 4250;

  // Per iteration on the training thread (for the tests' expected figures).
  static constexpr double kToUs = 1'000, kConvUs = 3'000, kLossUs = 1'000, kZeroUs = 500, kStepUs = 1'000,
                          kGapUs = 100, kOpGapUs = 50;
  double iteration_us() const {
    return fetch_us + kOpGapUs + kToUs + kOpGapUs + kConvUs + kOpGapUs + kLossUs + backward_us + kZeroUs + kOpGapUs +
           kStepUs + kGapUs;
  }
};

inline std::string synth_kineto_trace(const SynthTrace& o) {
  using nlohmann::json;
  json ev = json::array();
  std::uint64_t corr = 1000;
  auto x = [&](const char* cat, const std::string& name, int tid, double ts, double dur, json args = json::object()) {
    json e = {{"ph", "X"}, {"cat", cat}, {"name", name}, {"pid", o.pid}, {"tid", tid}, {"ts", ts}, {"dur", dur}};
    if (!args.empty()) e["args"] = std::move(args);
    ev.push_back(std::move(e));
  };
  auto gpu = [&](const char* cat, const std::string& name, double ts, double dur, std::uint64_t c, json args) {
    args["device"] = 0;
    args["stream"] = 7;
    args["correlation"] = c;
    ev.push_back({{"ph", "X"}, {"cat", cat}, {"name", name}, {"pid", 0}, {"tid", 7}, {"ts", ts}, {"dur", dur},
                  {"args", std::move(args)}});
  };
  // A kernel launch at `ts` on `tid`; the kernel runs `k_us` from `ts + 15`.
  auto launch = [&](int tid, double ts, const std::string& kernel, double k_us) {
    const std::uint64_t c = corr++;
    x("cuda_runtime", "cudaLaunchKernel", tid, ts, 10, {{"cbid", 211}, {"correlation", c}});
    gpu("kernel", kernel, ts + 15, k_us, c, json::object());
  };
  ev.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", o.pid}, {"tid", 0}, {"args", {{"name", "python3"}}}});
  ev.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", o.pid}, {"tid", o.tid},
                {"args", {{"name", "thread " + std::to_string(o.tid) + " (python3)"}}}});
  ev.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", 0}, {"tid", 0}, {"args", {{"name", "GPU 0"}}}});

  const std::string next = o.workers > 0 ? "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__"
                                         : "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";
  // Setup: model.to(device) and friends.
  x("cpu_op", "aten::empty", o.tid, 10, 40);
  x("cpu_op", "aten::to", o.tid, 1'000, o.setup_us - 2'000);
  x("cuda_runtime", "cudaMalloc", o.tid, 1'100, 500, {{"cbid", 20}, {"correlation", corr++}});

  double t = o.setup_us;
  for (int i = 0; i < o.iterations; ++i) {
    const double iter_start = t;
    const double fetch = i == 0 ? o.first_fetch_us : o.fetch_us;
    x("user_annotation", next, o.tid, t, fetch);
    if (o.workers == 0) {  // the fetch's own ops (ToTensor, Normalize, collate)
      x("cpu_op", "aten::div_", o.tid, t + fetch * 0.1, fetch * 0.3);
      x("cpu_op", "aten::stack", o.tid, t + fetch * 0.5, fetch * 0.2);
    }
    t += fetch + SynthTrace::kOpGapUs;
    // images.to(device): a pageable HtoD copy.
    x("cpu_op", "aten::to", o.tid, t, SynthTrace::kToUs);
    x("cpu_op", "aten::copy_", o.tid, t + 100, SynthTrace::kToUs - 200);
    {
      const std::uint64_t c = corr++;
      x("cuda_runtime", "cudaMemcpyAsync", o.tid, t + 150, 600, {{"cbid", 41}, {"correlation", c}});
      gpu("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", t + 200, 500, c, {{"bytes", 12'845'056}});
    }
    t += SynthTrace::kToUs + SynthTrace::kOpGapUs;
    // Forward.
    x("cpu_op", "aten::conv2d", o.tid, t, SynthTrace::kConvUs);
    x("cpu_op", "aten::convolution", o.tid, t + 50, SynthTrace::kConvUs - 100);
    launch(o.tid, t + 2'000, "void cudnn::conv_fwd_kernel<float>", 800);
    t += SynthTrace::kConvUs + SynthTrace::kOpGapUs;
    x("cpu_op", "aten::cross_entropy_loss", o.tid, t, SynthTrace::kLossUs);
    launch(o.tid, t + 500, "void at::native::nll_loss_forward_kernel<float>", 50);
    t += SynthTrace::kLossUs;
    // Backward on the autograd thread; the training thread waits in no range.
    x("cpu_op", "autograd::engine::evaluate_function: ConvolutionBackward0", o.autograd_tid, t + 200,
      o.backward_us - 600);
    launch(o.autograd_tid, t + 300, "void cudnn::conv_bwd_kernel<float>", 1'500);
    t += o.backward_us;
    if (o.optimizer) {
      x("user_annotation", "Optimizer.zero_grad#SGD.zero_grad", o.tid, t, SynthTrace::kZeroUs);
      t += SynthTrace::kZeroUs + SynthTrace::kOpGapUs;
      x("user_annotation", "Optimizer.step#SGD.step", o.tid, t, SynthTrace::kStepUs);
      x("cpu_op", "aten::_foreach_add_", o.tid, t + 100, 600);
      launch(o.tid, t + 200, "void at::native::multi_tensor_apply_kernel<float>", 200);
      t += SynthTrace::kStepUs + SynthTrace::kGapUs;
    } else {
      x("cpu_op", "aten::zero_", o.tid, t, SynthTrace::kZeroUs);
      t += SynthTrace::kZeroUs + SynthTrace::kOpGapUs;
      x("cpu_op", "aten::add_", o.tid, t, SynthTrace::kStepUs);
      t += SynthTrace::kStepUs + SynthTrace::kGapUs;
    }
    if (o.profiler_steps)  // prof.step() at the end of each iteration: contiguous ranges
      x("user_annotation", "ProfilerStep#" + std::to_string(i), o.tid, iter_start, t - iter_start);
  }
  json doc = {{"schemaVersion", 1},
              {"deviceProperties",
               json::array({{{"id", 0}, {"name", "NVIDIA H200"}, {"totalGlobalMem", 150754820096ULL},
                             {"computeMajor", 9}, {"computeMinor", 0}, {"numSms", 132}}})},
              {"traceEvents", std::move(ev)}};
  return doc.dump();
}

}  // namespace amdahl::test
