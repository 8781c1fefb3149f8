// The --workers transform (restructure.hpp) on hand-built replay graphs: a serial pipeline
// (load inline, then compute) restructured onto N loader workers with a bounded prefetch must
// replay exactly as an independent simulation of that pipeline; combined factors, filler nodes
// and gaps, step boundaries, the untouched original graph, and the error cases; and a recorded
// GPU run (launch, kernel, blocking sync) through the real graph builder.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "amdahl/analysis/errors.hpp"
#include "amdahl/analysis/replay.hpp"
#include "amdahl/analysis/restructure.hpp"
#include "amdahl/analysis/stage_rules.hpp"
#include "amdahl/analysis/steps.hpp"
#include "amdahl/analysis/timeline.hpp"

using namespace amdahl;
using namespace amdahl::analysis;

namespace {

constexpr std::int64_t kMs = 1000000;
enum Stage : std::int16_t { kIo = 0, kPre = 1, kCompute = 2 };

// A lane's nodes back to back (program order), optional extra edges; finalised into the CSR.
struct GraphBuilder {
  ReplayGraph g;
  std::vector<std::vector<ReplayEdge>> in;
  GraphBuilder() {
    g.stage_names = {"disk_io", "cpu_preprocess", "gpu_compute"};
    g.stage_on_gpu = {0, 0, 0};
  }
  std::uint32_t lane(const std::string& name) {
    ReplayLane l;
    l.id = g.lanes.size() + 1;
    l.name = name;
    g.lanes.push_back(l);
    return static_cast<std::uint32_t>(g.lanes.size() - 1);
  }
  std::uint32_t node(std::uint32_t lane, std::int64_t a, std::int64_t b, NodeKind kind, std::int16_t stage) {
    ReplayNode n;
    n.start_ns = a;
    n.end_ns = b;
    n.base_ns = kind == NodeKind::Wait ? b - a : 0;
    n.lane = lane;
    n.kind = kind;
    n.stage = stage;
    g.nodes.push_back(n);
    in.emplace_back();
    return static_cast<std::uint32_t>(g.nodes.size() - 1);
  }
  void edge(std::uint32_t from, std::uint32_t to, std::int64_t w, bool join = false) {
    ReplayEdge e;
    e.from = from;
    e.to = to;
    e.weight_ns = w;
    e.join = join ? 1 : 0;
    in[to].push_back(e);
  }
  ReplayGraph done() {
    g.edge_begin.assign(g.nodes.size() + 1, 0);
    for (std::size_t i = 0; i < in.size(); ++i) g.edge_begin[i + 1] = g.edge_begin[i] + static_cast<std::uint32_t>(in[i].size());
    for (auto& v : in) g.edges.insert(g.edges.end(), v.begin(), v.end());
    prepare_replay(g);
    return g;
  }
};

struct Serial {
  double io = 2, pre = 20, compute = 8;  // ms
  double gap = 0;                        // ms of `other` between loading and compute
  double inner_gap = 0;                  // ms of `other` between io and preprocess
  int steps = 40;
};

// One driving lane: per step [io][inner other][pre][gap other][compute]; each step starts a span.
ReplayGraph serial_graph(const Serial& s) {
  GraphBuilder b;
  const std::uint32_t drv = b.lane("main");
  std::int64_t t = 0;
  std::uint32_t prev = ~0u;
  auto add = [&](double ms, NodeKind k, std::int16_t st) {
    const auto d = static_cast<std::int64_t>(std::llround(ms * kMs));
    const std::uint32_t id = b.node(drv, t, t + d, k, st);
    if (prev != ~0u) b.edge(prev, id, 0);
    prev = id;
    t += d;
    return id;
  };
  for (int k = 0; k < s.steps; ++k) {
    b.g.span_first_node.push_back(add(s.io, NodeKind::Work, kIo));
    if (s.inner_gap > 0) add(s.inner_gap, NodeKind::Work, kLabelOther);
    add(s.pre, NodeKind::Work, kPre);
    if (s.gap > 0) add(s.gap, NodeKind::Work, kLabelOther);
    b.g.window_end_node = add(s.compute, NodeKind::Work, kCompute);
  }
  b.g.window = {0, t};
  return b.done();
}

// Ground truth: N workers, batch k on worker k mod N, started no earlier than the previous
// batch of its worker ended and the consume of batch k - P*N; the driver waits for batch k,
// then computes. Returns the window length (first consume to the last compute's end).
double simulate_workers(double load, double compute, int steps, int workers, int prefetch) {
  std::vector<double> done(static_cast<std::size_t>(steps)), consumed(static_cast<std::size_t>(steps));
  double main_t = 0;
  for (int k = 0; k < steps; ++k) {
    double start = 0;
    if (k >= workers) start = std::max(start, done[static_cast<std::size_t>(k - workers)]);
    if (k >= prefetch * workers) start = std::max(start, consumed[static_cast<std::size_t>(k - prefetch * workers)]);
    done[static_cast<std::size_t>(k)] = start + load;
    // Batches are issued in order: batch k is handed out when the driver has taken k - P*N.
    consumed[static_cast<std::size_t>(k)] = std::max(main_t, done[static_cast<std::size_t>(k)]);
    main_t = consumed[static_cast<std::size_t>(k)] + compute;
  }
  return main_t;
}

double replayed_speedup(const ReplayGraph& g, const std::vector<double>& f) {
  const ReplayResult r = replay(g, f);
  return static_cast<double>(g.window.end_ns - g.window.start_ns) / static_cast<double>(r.window_ns);
}

}  // namespace

TEST_CASE("--workers: a serial pipeline restructured matches the simulation of N loader workers") {
  struct Case { double io, pre, compute; int workers, prefetch; };
  for (const Case c : {Case{2, 20, 8, 4, 2}, Case{4, 40, 8, 4, 2}, Case{2, 20, 8, 1, 2}, Case{2, 20, 8, 2, 1},
                       Case{5, 10, 30, 4, 2}, Case{2, 20, 8, 8, 2}, Case{1, 3, 8, 3, 3}}) {
    Serial s;
    s.io = c.io; s.pre = c.pre; s.compute = c.compute;
    const ReplayGraph g = serial_graph(s);
    LoaderWorkers o;
    o.workers = static_cast<std::size_t>(c.workers);
    o.prefetch = static_cast<std::size_t>(c.prefetch);
    const RestructuredGraph rg = move_loading_to_workers(g, o);
    CAPTURE(c.io); CAPTURE(c.pre); CAPTURE(c.compute); CAPTURE(c.workers); CAPTURE(c.prefetch);
    CHECK(rg.summary.batches == 40);
    CHECK(rg.summary.batches_in_window == 40);
    CHECK(rg.summary.loading_ns_in_window == doctest::Approx(40 * (c.io + c.pre) * kMs));
    CHECK(rg.graph.lanes.size() == 1 + o.workers);
    const double truth = simulate_workers(c.io + c.pre, c.compute, s.steps, c.workers, c.prefetch);
    const double serial_ms = s.steps * (c.io + c.pre + c.compute);
    CHECK(replayed_speedup(rg.graph, {1, 1, 1}) == doctest::Approx(serial_ms / truth).epsilon(1e-9));
    // Combined with a factor on a loading stage: the workers' batches get shorter.
    const double truth2 = simulate_workers(c.io + c.pre / 2, c.compute, s.steps, c.workers, c.prefetch);
    CHECK(replayed_speedup(rg.graph, {1, 2, 1}) == doctest::Approx(serial_ms / truth2).epsilon(1e-9));
    // And on compute (the driving thread).
    const double truth3 = simulate_workers(c.io + c.pre, c.compute / 4, s.steps, c.workers, c.prefetch);
    CHECK(replayed_speedup(rg.graph, {1, 1, 4}) == doctest::Approx(serial_ms / truth3).epsilon(1e-9));
  }
}

TEST_CASE("--workers: input bound and compute bound limits") {
  Serial s;
  s.steps = 200;
  LoaderWorkers o;
  o.workers = 4;
  // io 4 + pre 40 = 44 ms over 4 workers = 11 ms a batch > compute 8: input bound, ~52/11.
  s.io = 4; s.pre = 40; s.compute = 8;
  double v = replayed_speedup(move_loading_to_workers(serial_graph(s), o).graph, {});
  CHECK(v == doctest::Approx(52.0 / 11.0).epsilon(0.02));
  // io 2 + pre 20 = 22 ms over 4 = 5.5 ms < compute 8: compute bound, ~30/8.
  s.io = 2; s.pre = 20; s.compute = 8;
  v = replayed_speedup(move_loading_to_workers(serial_graph(s), o).graph, {});
  CHECK(v == doctest::Approx(30.0 / 8.0).epsilon(0.02));
}

TEST_CASE("--workers: `other` inside a batch moves with it; `other` after it stays on the driving thread") {
  Serial s;
  s.inner_gap = 1;  // inside the batch: moves
  s.gap = 3;        // between the last loading node and compute: stays
  const ReplayGraph g = serial_graph(s);
  LoaderWorkers o;
  o.workers = 4;
  const RestructuredGraph rg = move_loading_to_workers(g, o);
  CHECK(rg.summary.moved_ns_in_window == doctest::Approx(40 * 23.0 * kMs));
  CHECK(rg.summary.loading_ns_in_window == doctest::Approx(40 * 22.0 * kMs));
  const double truth = simulate_workers(23, 8 + 3, s.steps, 4, 2);
  CHECK(replayed_speedup(rg.graph, {}) == doctest::Approx(s.steps * 34.0 / truth).epsilon(1e-9));
}

TEST_CASE("--workers: the original graph is untouched, and without workers the replay is the recording") {
  Serial s;
  const ReplayGraph g = serial_graph(s);
  const ReplayResult before = replay(g, {});
  CHECK(before.window_ns == g.window.end_ns - g.window.start_ns);
  LoaderWorkers o;
  o.workers = 4;
  const RestructuredGraph rg = move_loading_to_workers(g, o);
  const ReplayResult after = replay(g, {});
  CHECK(after.start_ns == before.start_ns);
  CHECK(after.end_ns == before.end_ns);
  // The spans now start at the batches' waits, and there are as many.
  CHECK(rg.graph.span_first_node.size() == g.span_first_node.size());
  for (std::uint32_t sp : rg.graph.span_first_node) CHECK(rg.graph.nodes[sp].kind == NodeKind::Wait);
  // Removing the loading entirely: workers or not, the same run (compute back to back).
  const double removed = 1e9;
  CHECK(replayed_speedup(rg.graph, {removed, removed, 1}) ==
        doctest::Approx(replayed_speedup(g, {removed, removed, 1})).epsilon(1e-6));
  // Every node's work is still there: the moved nodes keep their durations.
  std::int64_t work_before = 0, work_after = 0;
  for (const auto& n : g.nodes) work_before += n.end_ns - n.start_ns;
  for (const auto& n : rg.graph.nodes)
    if (n.kind == NodeKind::Work) work_after += n.end_ns - n.start_ns;
  CHECK(work_before == work_after);
}

TEST_CASE("--workers: the loading on another thread already is not supported; no loading is bad input") {
  GraphBuilder b;
  const std::uint32_t drv = b.lane("main"), ld = b.lane("loader-0");
  std::uint32_t prev_d = ~0u, prev_l = ~0u;
  for (int k = 0; k < 5; ++k) {
    const std::int64_t t = k * 10 * kMs;
    const std::uint32_t io = b.node(ld, t, t + 5 * kMs, NodeKind::Work, kIo);
    if (prev_l != ~0u) b.edge(prev_l, io, 0);
    prev_l = io;
    const std::uint32_t c = b.node(drv, t, t + 10 * kMs, NodeKind::Work, kCompute);
    if (prev_d != ~0u) b.edge(prev_d, c, 0);
    prev_d = c;
    b.g.span_first_node.push_back(c);
    b.g.window_end_node = c;
  }
  b.g.window = {0, 50 * kMs};
  const ReplayGraph g = b.done();
  LoaderWorkers o;
  o.workers = 4;
  CHECK_THROWS_AS(move_loading_to_workers(g, o), UsageError);
  try {  // typed: the loader threads without produce/consume marks
    move_loading_to_workers(g, o);
  } catch (const UsageError& e) {
    const auto* p = e.problem() ? std::get_if<problems::WorkersLanesUnlinked>(e.problem()) : nullptr;
    REQUIRE(p != nullptr);
    CHECK(p->lanes == 1);
  }
  o.stages = {"gpu_compute_nope"};
  CHECK_THROWS_AS(move_loading_to_workers(g, o), InputError);
  try {  // typed: the stages asked for and the graph's
    move_loading_to_workers(g, o);
  } catch (const InputError& e) {
    const auto* p = e.problem() ? std::get_if<problems::WorkersStagesAbsent>(e.problem()) : nullptr;
    REQUIRE(p != nullptr);
    CHECK(p->wanted == std::vector<std::string>{"gpu_compute_nope"});
    CHECK(p->known == g.stage_names);
  }
  o.stages = {"disk_io"};
  o.workers = 0;
  CHECK_THROWS_AS(move_loading_to_workers(g, o), UsageError);
}

namespace {

// A recorded serial GPU run: per step, io + preprocess inline (nested in `step`), h2d on the
// host, then a kernel launch and a blocking cudaDeviceSynchronize until the kernel ends.
struct GpuRun {
  double io = 3, pre = 17, h2d = 1, launch_api = 0.02, latency = 0.005, kernel = 6, wake = 0.002;
  int steps = 60;
};

format::RecordSet record_gpu_run(const GpuRun& c) {
  format::RecordSet rs;
  auto add = [&](const std::string& x) {
    rs.strings.push_back(x);
    return static_cast<format::StrId>(rs.strings.size() - 1);
  };
  const auto dom = add("amdahl"), step = add("step"), io = add("disk_io"), pre = add("cpu_preprocess"),
             h2d = add("h2d"), compute = add("gpu_compute"), launch = add("cudaLaunchKernel"),
             sync = add("cudaDeviceSynchronize"), kernel = add("spin_kernel");
  auto ns = [](double ms) { return static_cast<std::int64_t>(std::llround(ms * kMs)); };
  auto range = [&](format::StrId name, double a, double b, int depth) {
    format::RangeRec r;
    r.pid = 1; r.tid = 1; r.end_tid = 1; r.domain = dom; r.name = name; r.depth = depth;
    r.start_ns = ns(a); r.end_ns = ns(b);
    rs.ranges.push_back(r);
  };
  double t = 0;
  std::uint32_t corr = 1;
  for (int k = 0; k < c.steps; ++k) {
    const double s0 = t;
    range(io, t, t + c.io, 1); t += c.io;
    range(pre, t, t + c.pre, 1); t += c.pre;
    range(h2d, t, t + c.h2d, 1); t += c.h2d;
    const double g0 = t;
    format::ApiCallRec a;
    a.pid = 1; a.tid = 1; a.name = launch; a.correlation_id = corr;
    a.start_ns = ns(t); a.end_ns = ns(t + c.launch_api);
    rs.api_calls.push_back(a);
    format::GpuOpRec op;
    op.pid = 1; op.stream = 7; op.kind = format::GpuOpKind::Kernel; op.name = kernel; op.correlation_id = corr++;
    const double k0 = t + c.latency;
    op.start_ns = ns(k0); op.end_ns = ns(k0 + c.kernel);
    rs.gpu_ops.push_back(op);
    t += c.launch_api;
    format::ApiCallRec y;
    y.pid = 1; y.tid = 1; y.name = sync; y.correlation_id = corr++;
    y.start_ns = ns(t);
    t = std::max(t, k0 + c.kernel) + c.wake;
    y.end_ns = ns(t);
    rs.api_calls.push_back(y);
    range(compute, g0, t, 1);
    range(step, s0, t, 0);
  }
  return rs;
}

}  // namespace

TEST_CASE("--workers on a recorded GPU run (launch, kernel, sync) through the graph builder") {
  for (const double pre : {17.0, 40.0}) {  // 20 ms of loading / 4 = 5 < 7 (GPU bound); 43 / 4 > 7
    GpuRun c;
    c.pre = pre;
    const format::RecordSet rs = record_gpu_run(c);
    const Timeline tl = build_timeline(rs, StageRules{});
    const StepSelection sel = select_steps(tl, std::size_t{1});
    ReplayGraph g = build_replay_graph(tl, attribute_gpu_ops(tl), sel);
    prepare_replay(g);
    const double wall = static_cast<double>(sel.window.end_ns - sel.window.start_ns);
    REQUIRE(static_cast<double>(replay(g, {}).window_ns) == doctest::Approx(wall).epsilon(1e-9));
    LoaderWorkers o;
    o.workers = 4;
    const RestructuredGraph rg = move_loading_to_workers(g, o);
    CHECK(rg.summary.batches == static_cast<std::size_t>(c.steps));
    CHECK(rg.summary.batches_in_window == static_cast<std::size_t>(c.steps - 1));
    // Ground truth: the driver's own part of a step after its batch is there.
    const double driver = c.h2d + std::max(c.launch_api, c.latency + c.kernel) + c.wake;
    const double load = c.io + c.pre;
    // The window starts at the second step (the first is warm-up): simulate all steps and
    // take the second consume as the start.
    std::vector<double> done(static_cast<std::size_t>(c.steps)), consumed(static_cast<std::size_t>(c.steps));
    double main_t = 0;
    for (int k = 0; k < c.steps; ++k) {
      double st = 0;
      if (k >= 4) st = std::max(st, done[static_cast<std::size_t>(k - 4)]);
      if (k >= 8) st = std::max(st, consumed[static_cast<std::size_t>(k - 8)]);
      done[static_cast<std::size_t>(k)] = st + load;
      consumed[static_cast<std::size_t>(k)] = std::max(main_t, done[static_cast<std::size_t>(k)]);
      main_t = consumed[static_cast<std::size_t>(k)] + driver;
    }
    const double truth = (main_t - (consumed[0] + driver)) * kMs;  // step 1 starts when step 0 ends
    const ReplayResult r = replay(rg.graph, {});
    CAPTURE(pre);
    CHECK(static_cast<double>(r.window_ns) == doctest::Approx(truth).epsilon(0.005));
    // gpu_compute 2x: the kernel halves (a GPU stage is scaled on the GPU only).
    const double driver2 = c.h2d + std::max(c.launch_api, c.latency + c.kernel / 2) + c.wake;
    main_t = 0;
    for (int k = 0; k < c.steps; ++k) {
      double st = 0;
      if (k >= 4) st = std::max(st, done[static_cast<std::size_t>(k - 4)]);
      if (k >= 8) st = std::max(st, consumed[static_cast<std::size_t>(k - 8)]);
      done[static_cast<std::size_t>(k)] = st + load;
      consumed[static_cast<std::size_t>(k)] = std::max(main_t, done[static_cast<std::size_t>(k)]);
      main_t = consumed[static_cast<std::size_t>(k)] + driver2;
    }
    const double truth2 = (main_t - (consumed[0] + driver2)) * kMs;
    std::vector<double> f(g.stage_names.size(), 1.0);
    for (std::size_t i = 0; i < g.stage_names.size(); ++i)
      if (g.stage_names[i] == "gpu_compute") f[i] = 2;
    CHECK(static_cast<double>(replay(rg.graph, f).window_ns) == doctest::Approx(truth2).epsilon(0.005));
  }
}
