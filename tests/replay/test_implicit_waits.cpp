// Implicit waits (docs/analysis.md, "Implicit waits"): recordings made by a small simulation of
// a CUDA launch queue of known depth (the host blocks in the launch call while the queue is
// full, as PyTorch's loop does) and of calls that synchronize without being syncs (cudaFree,
// a pageable cudaMemcpyAsync). The replay with a stage scaled must match the simulation run
// with the scaled costs (ground truth), and with every factor 1 reproduce the recording.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <string>

#include "amdahl/analysis/replay.hpp"
#include "amdahl/analysis/report.hpp"
#include "amdahl/analysis/stage_rules.hpp"
#include "amdahl/analysis/validate.hpp"
#include "amdahl/analysis/whatif.hpp"
#include "amdahl/render/finding_text.hpp"
#include "amdahl/render/renderers.hpp"

using namespace amdahl;
using namespace amdahl::analysis;
using namespace amdahl::render;

namespace {

constexpr double kUs = 1000;  // ns

struct QueueCosts {
  double host_us = 300;      // cpu_preprocess per step, on the host
  int kernels = 40;          // kernels per step, each launched by one cudaLaunchKernel
  double kernel_us = 50;     // GPU time of each kernel
  double launch_us = 5;      // host cost of a launch call that does not block
  double host_per_kernel_us = 3;  // host work between launches (Python, library code) in gpu_compute
  double latency_us = 4;     // launch -> kernel start when the GPU is idle
  double wake_us = 2;        // op retired -> blocked launch call returns
  int depth = 64;            // launch queue depth (ops in flight before a launch blocks)
  int steps = 40;
  // How the host waits besides the queue: 0 none (one cudaDeviceSynchronize at the end),
  // 1 a cudaFree after each step's kernels (waits for the device to drain),
  // 2 a pageable cudaMemcpyAsync after each step's kernels (returns when its copy is done).
  int sync_mode = 0;
  double copy_us = 40;       // GPU time of the pageable copy (sync_mode 2)
  double free_us = 0;        // cudaFree's own work after the drain (sync_mode 1)
};

struct Recorder {
  format::RecordSet rs;
  format::StrId dom, step, pre, compute, launch, free_, memcpy_, devsync, kernel;
  std::uint32_t corr = 1;
  format::StrId add(const std::string& s) {
    rs.strings.push_back(s);
    return static_cast<format::StrId>(rs.strings.size() - 1);
  }
  Recorder() {
    dom = add("amdahl"); step = add("step"); pre = add("cpu_preprocess"); compute = add("gpu_compute");
    launch = add("cudaLaunchKernel"); free_ = add("cudaFree"); memcpy_ = add("cudaMemcpyAsync");
    devsync = add("cudaDeviceSynchronize"); kernel = add("spin");
  }
  static std::int64_t ns(double us) { return std::llround(us * kUs); }
  void range(format::StrId name, double a, double b, int depth) {
    format::RangeRec r;
    r.pid = 1; r.tid = 1; r.end_tid = 1; r.domain = dom; r.name = name; r.depth = depth;
    r.start_ns = ns(a); r.end_ns = ns(b);
    rs.ranges.push_back(r);
  }
  std::uint32_t api(format::StrId name, double a, double b, std::uint64_t tid = 1) {
    format::ApiCallRec c;
    c.pid = 1; c.tid = tid; c.name = name; c.correlation_id = corr;
    c.start_ns = ns(a); c.end_ns = ns(b);
    rs.api_calls.push_back(c);
    return corr++;
  }
  void op(std::uint32_t correlation, format::GpuOpKind kind, double a, double b) {
    format::GpuOpRec o;
    o.pid = 1; o.stream = 7; o.kind = kind; o.name = kind == format::GpuOpKind::Kernel ? kernel : format::kNoString;
    o.correlation_id = correlation; o.start_ns = ns(a); o.end_ns = ns(b);
    if (kind == format::GpuOpKind::Memcpy) { o.copy_kind = format::CopyKind::HtoD; o.src_kind = format::MemKind::Pageable; }
    rs.gpu_ops.push_back(o);
  }
};

// One host thread, one stream. `gpu_scale` divides every GPU op's time (the ground truth of
// "GPU k times faster"); `host_scale` divides the host work inside gpu_compute.
format::RecordSet simulate(QueueCosts c, double gpu_scale = 1, double host_scale = 1) {
  c.kernel_us /= gpu_scale;
  c.copy_us /= gpu_scale;
  c.host_per_kernel_us /= host_scale;
  c.launch_us /= host_scale;
  Recorder r;
  double t = 0, gpu_free = 0;
  std::deque<double> in_flight;  // end times of ops handed to the GPU, oldest first
  auto enqueue = [&](double issued, double dur) {  // returns the op's start and end
    const double start = std::max(issued + c.latency_us, gpu_free);
    gpu_free = start + dur;
    in_flight.push_back(gpu_free);
    return std::make_pair(start, gpu_free);
  };
  auto retire_until = [&](double now) { while (!in_flight.empty() && in_flight.front() <= now) in_flight.pop_front(); };
  for (int s = 0; s < c.steps; ++s) {
    const double step0 = t;
    r.range(r.pre, t, t + c.host_us, 1);
    t += c.host_us;
    const double g0 = t;
    for (int k = 0; k < c.kernels; ++k) {
      t += c.host_per_kernel_us;
      const double call0 = t;
      retire_until(t);
      if (static_cast<int>(in_flight.size()) >= c.depth) {  // queue full: wait for the oldest op
        t = std::max(t + c.launch_us, in_flight.front() + c.wake_us);
        in_flight.pop_front();
      } else {
        t += c.launch_us;
      }
      const std::uint32_t id = r.api(r.launch, call0, t);
      const auto [a, b] = enqueue(call0, c.kernel_us);
      r.op(id, format::GpuOpKind::Kernel, a, b);
    }
    if (c.sync_mode == 1) {  // cudaFree: waits for everything queued, then frees
      const double call0 = t;
      t = std::max(t + c.launch_us, gpu_free + c.wake_us) + c.free_us;
      r.api(r.free_, call0, t);
      in_flight.clear();
    } else if (c.sync_mode == 2) {  // pageable copy: returns once its own copy is done
      const double call0 = t;
      const std::uint32_t id = r.api(r.memcpy_, call0, call0);  // end set below
      const auto [a, b] = enqueue(call0, c.copy_us);
      r.op(id, format::GpuOpKind::Memcpy, a, b);
      t = std::max(t + c.launch_us, b + c.wake_us);
      r.rs.api_calls.back().end_ns = Recorder::ns(t);
      in_flight.clear();
    }
    if (s == c.steps - 1) {  // the run ends with a device synchronize
      const double call0 = t;
      t = std::max(t + c.launch_us, gpu_free + c.wake_us);
      r.api(r.devsync, call0, t);
    }
    r.range(r.compute, g0, t, 1);
    r.range(r.step, step0, t, 0);
  }
  return std::move(r.rs);
}

format::Profile as_profile(format::RecordSet rs) {
  format::Profile p;
  p.records = std::move(rs);
  return p;
}

// Steady-state ms per step of a recording: the last `n` steps (the end is the final sync).
double window_ms(const format::RecordSet& rs, std::size_t warmup) {
  const Report r = analyze(as_profile(format::RecordSet(rs)), AnalysisOptions{{}, "step", warmup});
  return static_cast<double>(r.wall_ns) / 1e6;
}

void check_gpu_projection(const QueueCosts& c, double k, double tolerance = 0.01) {
  const std::size_t warmup = 8;
  AnalysisOptions opt;
  opt.warmup = warmup;
  const Report base = analyze(as_profile(simulate(c)), opt);
  const WhatIf w = compute_whatif(base, {{"gpu_compute", k}}, std::nullopt, WhatIfOptions{{}, false, {}});
  const double truth = window_ms(simulate(c), warmup) / window_ms(simulate(c, k), warmup);
  INFO("sync_mode " << c.sync_mode << " gpu_compute=" << k << ": simulated " << w.simulated_speedup << "x, truth "
                    << truth << "x, classic " << w.naive_speedup << "x");
  CHECK(std::abs(w.simulated_speedup / truth - 1) < tolerance);
}

}  // namespace

TEST_CASE("launch queue back-pressure: blocked launch calls are waits joined to the retiring op") {
  const QueueCosts c;
  AnalysisOptions opt;
  opt.warmup = 8;
  const Report r = analyze(as_profile(simulate(c)), opt);
  REQUIRE(r.graph);
  // Steady state: every launch waits for the op `depth` launches back.
  CHECK(r.graph->queue_full_waits > 20u * 32u);
  CHECK(r.graph->queue_depth == doctest::Approx(c.depth).epsilon(0.1));
  CHECK(r.graph->unlinked_waits == 0);
  // With every factor 1 the replay reproduces the recorded window.
  const ReplayResult base = replay(*r.graph, std::vector<double>(r.graph->stage_names.size(), 1.0));
  CHECK(std::abs(static_cast<double>(base.window_ns) / static_cast<double>(r.wall_ns) - 1) < 0.005);
  // GPU bound (2 ms of kernels per step against 0.62 ms of host): the path is the GPU's.
  CHECK(r.find_stage("gpu_compute")->fraction > 0.9);
  CHECK(to_text(r.verdict).find("compute bound") == 0);
  // The path says why: the kernels, and the host's waits on the full queue.
  CHECK(r.path.edge_count[static_cast<std::size_t>(EdgeKind::QueueFull)] + r.path.edge_count[static_cast<std::size_t>(EdgeKind::ProgramOrder)] > 0);
  const auto j = report_to_json(r);
  const auto in_window = j["critical_path"]["explanation"]["queue_full_waits"].get<std::size_t>();
  CHECK(in_window > 20u * 32u);  // the window's steps, each ~40 blocked launches
  CHECK(in_window <= r.graph->queue_full_waits);
  CHECK(j["critical_path"]["explanation"]["text"].get<std::string>().find("full launch queue") != std::string::npos);
}

TEST_CASE("launch queue back-pressure: a faster GPU is predicted, up to the host's own launch cost") {
  const QueueCosts c;
  // 2 ms of kernels vs 0.62 ms of host per step: 2x is GPU bound still, 10x is host bound.
  for (double k : {1.5, 2.0, 4.0, 10.0}) check_gpu_projection(c, k);
}

TEST_CASE("calls that synchronize without being syncs: cudaFree and a pageable copy") {
  QueueCosts c;
  c.depth = 1000;  // the queue never fills: the waits are the cudaFree / the copy
  for (int mode : {1, 2}) {
    c.sync_mode = mode;
    AnalysisOptions opt;
    opt.warmup = 8;
    const Report r = analyze(as_profile(simulate(c)), opt);
    REQUIRE(r.graph);
    CHECK(r.graph->implicit_sync_waits >= 31u);
    CHECK(r.graph->queue_full_waits == 0);
    for (double k : {2.0, 4.0}) check_gpu_projection(c, k);
  }
  // A cudaFree that frees for 300 us after the device drained.
  c.sync_mode = 1;
  c.free_us = 300;
  for (double k : {2.0, 4.0}) check_gpu_projection(c, k);
  // A pageable copy that goes on copying out of its staging buffer 150 us after its DMA ended.
  c.sync_mode = 2;
  c.wake_us = 150;
  for (double k : {2.0, 4.0}) check_gpu_projection(c, k);
}

TEST_CASE("launch bound: a GPU that idles while the host launches is not compute bound") {
  QueueCosts c;
  c.kernels = 100;
  c.kernel_us = 4;            // 0.4 ms of kernels per step
  c.host_per_kernel_us = 12;  // 1.7 ms of host per step in gpu_compute
  c.host_us = 50;
  AnalysisOptions opt;
  opt.warmup = 8;
  const Report r = analyze(as_profile(simulate(c)), opt);
  INFO(to_text(r.verdict));
  CHECK(to_text(r.verdict).find("launch bound") == 0);
  const StageRow* g = r.find_stage("gpu_compute");
  REQUIRE(g);
  CHECK(g->exposed_host_ns > 5 * g->exposed_gpu_ns);
  // A faster GPU buys nothing; a faster host part of gpu_compute does.
  const WhatIf w = compute_whatif(r, {{"gpu_compute", 10.0}}, std::nullopt, WhatIfOptions{{}, false, {}});
  CHECK(w.simulated_speedup < 1.02);
  const double truth = window_ms(simulate(c), 8) / window_ms(simulate(c, 1, 2.0), 8);
  const ReplayResult half = replay(*r.graph, {}, [&] {
    std::vector<double> f(r.graph->stage_names.size(), 1.0);
    f[static_cast<std::size_t>(std::find(r.graph->stage_names.begin(), r.graph->stage_names.end(), "gpu_compute") -
                               r.graph->stage_names.begin())] = 2.0;
    return f;
  }());
  const ReplayResult one = replay(*r.graph, {});
  INFO("host part 2x: replay " << static_cast<double>(one.window_ns) / static_cast<double>(half.window_ns) << "x, truth " << truth << "x");
  CHECK(std::abs(static_cast<double>(one.window_ns) / static_cast<double>(half.window_ns) / truth - 1) < 0.02);
}

TEST_CASE("validate: the host part and the GPU part of a stage are measured and used apart") {
  QueueCosts c;
  c.kernels = 100;
  c.kernel_us = 8;
  c.host_per_kernel_us = 10;
  c.host_us = 50;
  AnalysisOptions opt;
  opt.warmup = 8;
  // The improved run: GPU 2x faster, host part 0.7x (slower, as AMP adds casts).
  const Report base = analyze(as_profile(simulate(c)), opt);
  const Report improved = analyze(as_profile(simulate(c, 2.0, 0.7)), opt);
  const Validation v = validate_runs(base, improved);
  INFO(validation_to_text(base, improved, v));
  CHECK(v.measured_speedup < 0.85);  // slower overall
  CHECK(std::abs(v.simulated_error) < 0.02);
  bool host_row = false;
  for (const auto& s : v.stages)
    if (s.stage == "gpu_compute" && s.host_factor > 0) {
      host_row = true;
      CHECK(s.host_factor == doctest::Approx(0.7).epsilon(0.05));
      CHECK(s.factor == doctest::Approx(2.0).epsilon(0.05));
    }
  CHECK(host_row);
}

namespace {

// Each step: host work, then a copy (h2d) and a kernel (gpu_compute) on stream 7, an event
// recorded after them; before the next step the host waits (cudaEventSynchronize) on the event
// recorded `back` steps earlier. With `records`, the profile has the event records that name
// the exact op; without, the join is inferred.
format::RecordSet simulate_event_wait(double h2d_scale, int back, bool records) {
  Recorder r;
  const format::StrId rec = r.add("cudaEventRecord"), esync = r.add("cudaEventSynchronize"), h2d = r.add("h2d");
  const format::StrId copy = r.add("cudaMemcpyAsync");
  const double host_us = 1000, copy_us = 3000 / h2d_scale, kernel_us = 2000, call_us = 5, lat_us = 4, wake_us = 2;
  double t = 0, gpu_free = 0;
  std::vector<double> event_done;  // per step: when its event's op ended
  std::vector<std::uint32_t> event_corr;
  const int steps = 30;
  for (int s = 0; s < steps; ++s) {
    const double step0 = t;
    if (s >= back) {  // wait on the event of step s - back
      const double done = event_done[static_cast<std::size_t>(s - back)];
      const double call0 = t;
      t = std::max(t + call_us, done + wake_us);
      const std::uint32_t id = r.api(esync, call0, t);
      format::SyncRec y;
      y.pid = 1; y.kind = format::SyncKind::EventSynchronize; y.event = static_cast<std::uint32_t>(100 + (s - back) % 3);
      y.correlation_id = id; y.start_ns = Recorder::ns(call0); y.end_ns = Recorder::ns(t);
      r.rs.syncs.push_back(y);
    }
    r.range(r.pre, t, t + host_us, 1);
    t += host_us;
    r.range(h2d, t, t + call_us, 1);
    const std::uint32_t c = r.api(copy, t, t + call_us);
    double a = std::max(t + lat_us, gpu_free), b = a + copy_us;
    r.op(c, format::GpuOpKind::Memcpy, a, b);
    r.rs.gpu_ops.back().kind = format::GpuOpKind::Memcpy;
    gpu_free = b;
    t += call_us;
    r.range(r.compute, t, t + call_us, 1);
    const std::uint32_t k = r.api(r.launch, t, t + call_us);
    a = std::max(t + lat_us, gpu_free); b = a + kernel_us;
    r.op(k, format::GpuOpKind::Kernel, a, b);
    gpu_free = b;
    t += call_us;
    const std::uint32_t e = r.api(rec, t, t + call_us);
    if (records) {
      format::EventRecordRec er;
      er.pid = 1; er.stream = 7; er.event = static_cast<std::uint32_t>(100 + s % 3); er.correlation_id = e;
      r.rs.event_records.push_back(er);
    }
    event_done.push_back(gpu_free);
    event_corr.push_back(e);
    t += call_us;
    if (s == steps - 1) {
      const double call0 = t;
      t = std::max(t + call_us, gpu_free + wake_us);
      r.api(r.devsync, call0, t);
    }
    r.range(r.step, step0, t, 0);
  }
  return std::move(r.rs);
}

}  // namespace

TEST_CASE("a wait on an event from k steps back is joined to the exact op the event stands for") {
  for (int back : {1, 2}) {
    AnalysisOptions opt;
    opt.warmup = 6;
    const Report r = analyze(as_profile(simulate_event_wait(1, back, true)), opt);
    REQUIRE(r.graph);
    CHECK(r.graph->event_joins >= 20u);
    for (double k : {2.0, 4.0}) {
      const WhatIf w = compute_whatif(r, {{"h2d", k}}, std::nullopt, WhatIfOptions{{}, false, {}});
      const double truth = window_ms(simulate_event_wait(1, back, true), 6) / window_ms(simulate_event_wait(k, back, true), 6);
      INFO("back " << back << " h2d=" << k << ": simulated " << w.simulated_speedup << "x, truth " << truth << "x");
      CHECK(std::abs(w.simulated_speedup / truth - 1) < 0.01);
    }
  }
  // Without event records the join is the latest op that ended before the wait returned.
  const Report inferred = analyze(as_profile(simulate_event_wait(1, 2, false)), AnalysisOptions{{}, "step", 6});
  REQUIRE(inferred.graph);
  CHECK(inferred.graph->event_joins == 0);
}

namespace {

// PyTorch's shape: the training thread (tid 1, annotated) launches the forward pass, then blocks
// in backward() with no CUDA call of its own while the autograd thread (tid 2, no ranges)
// launches the backward pass, then goes on 0.3 ms after the autograd thread's last launch
// returns. One stream, a launch queue of `depth` ops shared by both threads.
format::RecordSet simulate_backward(double gpu_scale, int steps = 30) {
  Recorder r;
  const double fwd_host_us = 20, bwd_host_us = 25, launch_us = 5, wake_us = 300, latency_us = 4, handoff_us = 50;
  const int fwd = 30, bwd = 60, depth = 48;
  const double kernel_us = 60 / gpu_scale;
  double t = 0, gpu_free = 0;
  std::deque<double> in_flight;
  auto launch = [&](double& clock, std::uint64_t tid) {
    const double call0 = clock;
    while (!in_flight.empty() && in_flight.front() <= clock) in_flight.pop_front();
    if (static_cast<int>(in_flight.size()) >= depth) {
      clock = std::max(clock + launch_us, in_flight.front() + 2);
      in_flight.pop_front();
    } else {
      clock += launch_us;
    }
    const std::uint32_t id = r.api(r.launch, call0, clock, tid);
    const double a = std::max(call0 + latency_us, gpu_free), b = a + kernel_us;
    gpu_free = b;
    in_flight.push_back(b);
    r.op(id, format::GpuOpKind::Kernel, a, b);
  };
  double helper_t = 0;
  for (int s = 0; s < steps; ++s) {
    const double step0 = t;
    r.range(r.pre, t, t + 200, 1);
    t += 200;
    const double g0 = t;
    for (int k = 0; k < fwd; ++k) { t += fwd_host_us; launch(t, 1); }
    // backward(): the autograd thread wakes, launches, and the training thread goes on after it
    helper_t = std::max(helper_t, t + handoff_us);
    for (int k = 0; k < bwd; ++k) { helper_t += bwd_host_us; launch(helper_t, 2); }
    t = helper_t + wake_us;
    if (s == steps - 1) {
      const double call0 = t;
      t = std::max(t + launch_us, gpu_free + 2);
      r.api(r.devsync, call0, t);
    }
    r.range(r.compute, g0, t, 1);
    r.range(r.step, step0, t, 0);
  }
  return std::move(r.rs);
}

}  // namespace

TEST_CASE("backward(): the training thread blocked on the autograd thread is a wait on its last launch") {
  AnalysisOptions opt;
  opt.warmup = 6;
  const Report r = analyze(as_profile(simulate_backward(1)), opt);
  REQUIRE(r.graph);
  bool noted = false;
  for (const auto& n : r.notes) noted = noted || std::holds_alternative<findings::DriverWaitsOnHelpers>(n);
  CHECK(noted);
  // GPU bound (90 kernels of 60 us against ~2.4 ms of host per step): compute bound, and the
  // autograd thread's own work is gpu_compute's host part, not `other`.
  CHECK(to_text(r.verdict).find("compute bound") == 0);
  for (double k : {2.0, 4.0, 8.0}) {
    const WhatIf w = compute_whatif(r, {{"gpu_compute", k}}, std::nullopt, WhatIfOptions{{}, false, {}});
    const double truth = window_ms(simulate_backward(1), 6) / window_ms(simulate_backward(k), 6);
    INFO("gpu_compute=" << k << ": simulated " << w.simulated_speedup << "x, truth " << truth << "x");
    CHECK(std::abs(w.simulated_speedup / truth - 1) < 0.03);
  }
  // The host part includes the autograd thread: doubling it is seen once the GPU is fast.
  const Report fast = analyze(as_profile(simulate_backward(8)), opt);
  const StageRow* g = fast.find_stage("gpu_compute");
  REQUIRE(g);
  CHECK(g->exposed_host_ns > g->exposed_gpu_ns);
  CHECK(to_text(fast.verdict).find("launch bound") == 0);
}
