// Generates a large synthetic profile for the analysis benchmark (scripts/bench_analysis.sh):
// one process, a driving thread and 3 loader threads feeding it through a bounded queue
// (stage ranges, wait ranges, produce/consume marks), and per step an H2D copy and 40 kernel
// launches on one stream (CUDA API calls + GPU ops) closed by a cudaStreamSynchronize.
// Usage: amdahl_gen_profile OUT.amdahl [EVENTS] (default 10,000,000 events); --help says so and
// writes nothing, an unknown option is refused (exit 1) before anything is written.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "amdahl/format/profile_store.hpp"

using namespace amdahl::format;

namespace {

constexpr std::int64_t kUs = 1000;
constexpr int kLoaders = 3;
constexpr int kQueue = 4;
constexpr int kKernels = 40;

struct Gen {
  Profile p;
  RecordSet& rs = p.records;
  StrId add(const std::string& s) {
    rs.strings.push_back(s);
    return static_cast<StrId>(rs.strings.size() - 1);
  }
  void range(std::uint64_t tid, StrId dom, StrId name, std::int64_t a, std::int64_t b, int depth) {
    RangeRec r;
    r.pid = 1000; r.tid = tid; r.end_tid = tid; r.domain = dom; r.name = name; r.depth = depth;
    r.start_ns = a; r.end_ns = b;
    rs.ranges.push_back(r);
  }
  void mark(std::uint64_t tid, StrId dom, StrId name, std::int64_t t, std::int64_t item) {
    MarkRec m;
    m.pid = 1000; m.tid = tid; m.domain = dom; m.name = name; m.ts_ns = t;
    m.payload.kind = PayloadKind::Int64; m.payload.i = item;
    rs.marks.push_back(m);
  }
  void api(std::uint64_t tid, StrId name, std::int64_t a, std::int64_t b, std::uint32_t corr) {
    ApiCallRec c;
    c.pid = 1000; c.tid = tid; c.name = name; c.start_ns = a; c.end_ns = b; c.correlation_id = corr;
    rs.api_calls.push_back(c);
  }
  void op(GpuOpKind kind, StrId name, std::int64_t a, std::int64_t b, std::uint32_t corr, CopyKind ck) {
    GpuOpRec o;
    o.pid = 1000; o.device = 0; o.stream = 7; o.kind = kind; o.name = name; o.start_ns = a; o.end_ns = b;
    o.correlation_id = corr; o.copy_kind = ck; o.bytes = ck == CopyKind::Unknown ? 0 : 4u << 20;
    rs.gpu_ops.push_back(o);
  }
};

std::uint64_t lcg(std::uint64_t& s) {
  s = s * 6364136223846793005ULL + 1442695040888963407ULL;
  return s >> 33;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"amdahl_gen_profile: write a large synthetic profile for the analysis benchmark "
               "(scripts/bench_analysis.sh)"};
  std::string out;
  std::int64_t events = 10'000'000;
  app.add_option("out", out, "the profile to write (.amdahl; replaced if it exists)")->required();
  app.add_option("events", events, "about how many events (default 10000000; 1 to 1000000000)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1'000'000'000}));
  // A name that starts with '-' is an option (unknown ones are refused), never the output file.
  app.allow_extras(false);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "amdahl_gen_profile: error: %s (--help shows the usage)\n", e.what());
    return 1;
  }
  // Events per step: driver 4 ranges + 1 mark; loader 3 ranges + 1 mark; copy api + op;
  // kKernels launches (api + op); one sync api.
  const std::int64_t per_step = 4 + 1 + 3 + 1 + 2 + 2 * kKernels + 1;
  const std::int64_t steps = std::max<std::int64_t>(4, events / per_step);
  Gen g;
  const StrId dom = g.add("amdahl"), step = g.add("step"), wait = g.add("wait"), produce = g.add("produce"),
              consume = g.add("consume"), io = g.add("disk_io"), pre = g.add("cpu_preprocess"), h2d = g.add("h2d"),
              compute = g.add("gpu_compute"), launch = g.add("cudaLaunchKernel"),
              memcpy_async = g.add("cudaMemcpyAsync"), sync = g.add("cudaStreamSynchronize");
  std::vector<StrId> kernels;
  for (int k = 0; k < 8; ++k) kernels.push_back(g.add("kernel_" + std::to_string(k) + "_sm90_xmma_gemm"));
  g.rs.processes.push_back({1000, 1, g.add("python train.py --synthetic"), 0, 0, 0});
  g.rs.threads.push_back({1000, 1000, g.add("python")});
  for (int l = 0; l < kLoaders; ++l)
    g.rs.threads.push_back({1000, static_cast<std::uint64_t>(1001 + l), g.add("loader-" + std::to_string(l))});
  g.rs.ranges.reserve(static_cast<std::size_t>(steps * 7));
  g.rs.api_calls.reserve(static_cast<std::size_t>(steps * (kKernels + 2)));
  g.rs.gpu_ops.reserve(static_cast<std::size_t>(steps * (kKernels + 1)));

  std::uint64_t seed = 42;
  const std::int64_t t0 = 1'000'000'000;
  std::vector<std::int64_t> loader_free(kLoaders, t0), produced(static_cast<std::size_t>(steps)),
      consumed(static_cast<std::size_t>(steps));
  std::int64_t t = t0, gpu_free = t0;
  std::uint32_t corr = 1;
  for (std::int64_t i = 0; i < steps; ++i) {
    // Loader (round robin): disk_io, cpu_preprocess, a put that waits for space, produce.
    const int l = static_cast<int>(i % kLoaders);
    const std::uint64_t tid = static_cast<std::uint64_t>(1001 + l);
    std::int64_t s = loader_free[static_cast<std::size_t>(l)];
    const std::int64_t d_io = 4000 * kUs + static_cast<std::int64_t>(lcg(seed) % 1000) * kUs;
    const std::int64_t d_pre = 12000 * kUs + static_cast<std::int64_t>(lcg(seed) % 2000) * kUs;
    g.range(tid, dom, io, s, s + d_io, 0);
    g.range(tid, dom, pre, s + d_io, s + d_io + d_pre, 0);
    s += d_io + d_pre;
    std::int64_t put_end = s + 2 * kUs;
    if (i >= kQueue) put_end = std::max(put_end, consumed[static_cast<std::size_t>(i - kQueue)] + 5 * kUs);
    if (i > 0) put_end = std::max(put_end, produced[static_cast<std::size_t>(i - 1)] + 1 * kUs);  // in order
    g.range(tid, dom, wait, s, put_end, 0);
    g.mark(tid, dom, produce, put_end, i);
    produced[static_cast<std::size_t>(i)] = put_end;
    loader_free[static_cast<std::size_t>(l)] = put_end + 1 * kUs;

    // Driver: step [wait, consume, h2d (copy), gpu_compute (launches + sync)].
    const std::int64_t step_start = t;
    const std::int64_t take_end = std::max(t + 2 * kUs, put_end + 8 * kUs);
    g.range(1000, dom, wait, t, take_end, 1);
    g.mark(1000, dom, consume, take_end, i);
    consumed[static_cast<std::size_t>(i)] = take_end;
    t = take_end + 1 * kUs;
    const std::int64_t h2d_start = t;
    g.api(1000, memcpy_async, t, t + 8 * kUs, corr);
    std::int64_t ga = std::max(gpu_free, t + 6 * kUs);
    g.op(GpuOpKind::Memcpy, kNoString, ga, ga + 300 * kUs, corr++, CopyKind::HtoD);
    gpu_free = ga + 300 * kUs;
    t += 20 * kUs;
    g.range(1000, dom, h2d, h2d_start, t, 1);
    const std::int64_t comp_start = t;
    for (int k = 0; k < kKernels; ++k) {
      g.api(1000, launch, t, t + 5 * kUs, corr);
      ga = std::max(gpu_free, t + 4 * kUs);
      const std::int64_t dk = 100 * kUs + static_cast<std::int64_t>(lcg(seed) % 200) * kUs;
      g.op(GpuOpKind::Kernel, kernels[static_cast<std::size_t>(k % 8)], ga, ga + dk, corr++, CopyKind::Unknown);
      gpu_free = ga + dk;
      t += 7 * kUs;
    }
    const std::int64_t sync_end = std::max(t + 3 * kUs, gpu_free + 10 * kUs);
    g.api(1000, sync, t, sync_end, corr++);
    t = sync_end + 2 * kUs;
    g.range(1000, dom, compute, comp_start, t, 1);
    g.range(1000, dom, step, step_start, t, 0);
  }
  g.p.meta["format_version"] = std::to_string(kProfileFormatVersion);
  g.p.meta["command"] = "amdahl_gen_profile (synthetic benchmark profile)";
  const std::int64_t total = static_cast<std::int64_t>(g.rs.ranges.size() + g.rs.marks.size() + g.rs.api_calls.size() +
                                                       g.rs.gpu_ops.size());
  try {
    save_profile(g.p, out, true);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "amdahl_gen_profile: error: %s\n", e.what());
    return 2;
  }
  std::printf("%s: %lld steps, %lld events (%zu ranges, %zu marks, %zu API calls, %zu GPU ops)\n", out.c_str(),
              static_cast<long long>(steps), static_cast<long long>(total), g.rs.ranges.size(), g.rs.marks.size(),
              g.rs.api_calls.size(), g.rs.gpu_ops.size());
  return 0;
}
