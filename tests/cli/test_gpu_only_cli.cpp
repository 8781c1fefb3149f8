// `amdahl report` on a profile with GPU records and no step or stage ranges (issue 19, item 2):
// the GPU-only report in every format through the built binary, exit 0; a profile with neither
// GPU records nor ranges stays bad input (exit 2). Profiles are synthetic (no GPU needed).
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "amdahl/format/profile_store.hpp"
#include "../support/cli_support.hpp"

namespace fs = std::filesystem;
using namespace amdahl;
using test::run_amdahl;

namespace {

constexpr std::int64_t kUs = 1000, kMs = 1000 * 1000;
constexpr std::int64_t kT0 = 1'000'000'000;  // the command starts here; its first GPU op 50 ms later

struct Builder {
  format::Profile p;
  std::uint32_t corr = 1;
  format::StrId s(const std::string& text) {
    auto& strs = p.records.strings;
    for (std::size_t i = 0; i < strs.size(); ++i)
      if (strs[i] == text) return static_cast<format::StrId>(i);
    strs.push_back(text);
    return static_cast<format::StrId>(strs.size() - 1);
  }
  // An op and the launch call that issued it (10 us before, 5 us long).
  void op(format::GpuOpKind kind, std::int64_t start, std::int64_t dur, const std::string& name = "",
          format::CopyKind copy = format::CopyKind::Unknown, std::uint64_t bytes = 0) {
    format::GpuOpRec o;
    o.pid = 1;
    o.kind = kind;
    o.name = s(name);
    o.start_ns = start;
    o.end_ns = start + dur;
    o.correlation_id = corr;
    o.copy_kind = copy;
    o.bytes = bytes;
    p.records.gpu_ops.push_back(o);
    format::ApiCallRec c;
    c.pid = 1;
    c.tid = 1;
    c.name = s(kind == format::GpuOpKind::Kernel ? "cudaLaunchKernel" : "cudaMemcpyAsync");
    c.start_ns = start - 10 * kUs;
    c.end_ns = c.start_ns + 5 * kUs;
    c.correlation_id = corr++;
    p.records.api_calls.push_back(c);
  }
  void run(std::int64_t end) {
    p.meta["start_ns"] = std::to_string(kT0);
    p.meta["end_ns"] = std::to_string(end);
    p.meta["command"] = "python3 train.py";
  }
};

// Launch bound: 100 x (gemm 30 us, then 20 us gap, elementwise 10 us, then 40 us gap); an HtoD
// copy of 1 ms first and a DtoH of 0.5 ms last. Run: 50 ms before, 50 ms after.
format::Profile launch_bound() {
  Builder b;
  std::int64_t t = kT0 + 50 * kMs;
  b.op(format::GpuOpKind::Memcpy, t, 1 * kMs, "", format::CopyKind::HtoD, 1 << 20);
  t += 1 * kMs + 20 * kUs;
  for (int i = 0; i < 100; ++i) {
    b.op(format::GpuOpKind::Kernel, t, 30 * kUs, "sgemm_128x64<float>");
    t += 50 * kUs;
    b.op(format::GpuOpKind::Kernel, t, 10 * kUs, "elementwise_add");
    t += 50 * kUs;
  }
  b.op(format::GpuOpKind::Memcpy, t, 500 * kUs, "", format::CopyKind::DtoH, 4096);
  b.run(t + 500 * kUs + 50 * kMs);
  return b.p;
}

// GPU bound: 50 kernels of 2 ms with 10 us gaps.
format::Profile gpu_bound() {
  Builder b;
  std::int64_t t = kT0 + 1 * kMs;
  for (int i = 0; i < 50; ++i) {
    b.op(format::GpuOpKind::Kernel, t, 2 * kMs, "conv_fwd");
    t += 2 * kMs + 10 * kUs;
  }
  b.run(t + 1 * kMs);
  return b.p;
}

// Host bound: 10 bursts of 1 ms of kernels, 5 ms apart (input loading between them).
format::Profile host_bound() {
  Builder b;
  std::int64_t t = kT0 + 1 * kMs;
  for (int i = 0; i < 10; ++i) {
    b.op(format::GpuOpKind::Kernel, t, 1 * kMs, "resnet_block");
    t += 6 * kMs;
  }
  b.run(t);
  return b.p;
}

struct Dir {
  fs::path dir;
  std::string launch, gpu, host, empty;
  Dir() {
    if (!fs::exists(test::amdahl_bin())) {
      std::fprintf(stderr, "SKIP: %s not built\n", test::amdahl_bin().c_str());
      std::exit(77);
    }
    dir = fs::temp_directory_path() / ("amdahl_gpu_only_cli_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    launch = (dir / "launch.amdahl").string();
    gpu = (dir / "gpu.amdahl").string();
    host = (dir / "host.amdahl").string();
    empty = (dir / "empty.amdahl").string();
    format::save_profile(launch_bound(), launch, true);
    format::save_profile(gpu_bound(), gpu, true);
    format::save_profile(host_bound(), host, true);
    format::Profile nothing;
    nothing.meta["command"] = "python3 idle.py";
    format::save_profile(nothing, empty, true);
  }
  ~Dir() { fs::remove_all(dir); }
  std::string p(const char* name) const { return (dir / name).string(); }
};

}  // namespace

TEST_CASE("report: GPU records and no ranges give the GPU-only report (text)") {
  Dir d;
  const auto r = run_amdahl("report " + d.launch);
  CHECK(r.rc == 0);
  CHECK(r.err.empty());
  CHECK(r.out.find("GPU only") != std::string::npos);
  CHECK(r.out.find("verdict: launch bound") != std::string::npos);
  CHECK(r.out.find("GPU busy and idle") != std::string::npos);
  CHECK(r.out.find("kernels vs copies") != std::string::npos);
  CHECK(r.out.find("top kernels by time") != std::string::npos);
  CHECK(r.out.find("sgemm_128x64<float>") != std::string::npos);
  CHECK(r.out.find("amdahl profile --torch") != std::string::npos);
  CHECK(r.out.find("docs/annotation-guide.md") != std::string::npos);
  // The kernel table is ordered by time: sgemm (3 ms) before elementwise_add (1 ms).
  CHECK(r.out.find("sgemm_128x64") < r.out.find("elementwise_add"));
}

TEST_CASE("report --format json: the GPU-only figures") {
  Dir d;
  const auto r = run_amdahl("report " + d.launch + " --format json");
  REQUIRE(r.rc == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["report_kind"] == "gpu_only");
  CHECK(j["host_stages"] == "unknown");
  CHECK(j["bound"] == "launch_bound");
  CHECK(j["steps"] == 0);
  CHECK(j["stages"].empty());
  CHECK(j["how_to_get_stages"].get<std::string>().find("--torch") != std::string::npos);
  const auto& g = j["gpu"];
  // The run: 50 ms + 1 ms copy + 20 us + 100 x 100 us + 0.5 ms copy + 50 ms.
  const std::int64_t run = 50 * kMs + 1 * kMs + 20 * kUs + 100 * 100 * kUs + 500 * kUs + 50 * kMs;
  CHECK(j["wall_ns"] == run);
  CHECK(j["run"]["source"] == "command");
  const std::int64_t busy = 1 * kMs + 100 * 40 * kUs + 500 * kUs;
  CHECK(g["busy_ns"] == busy);
  CHECK(g["idle_ns"] == run - busy);
  CHECK(g["kernel_ns"] == 100 * 40 * kUs);
  CHECK(g["copy_ns"] == 1500 * kUs);
  // Gaps in the active span: 20 us after the copy, then 20 and 40 us per iteration (the last 40 us
  // before the DtoH copy): all under 100 us, so all launch gaps.
  const std::int64_t gaps = 20 * kUs + 100 * 60 * kUs;
  CHECK(g["active_idle_ns"] == gaps);
  CHECK(g["short_gap_share"].get<double>() == doctest::Approx(1.0));
  CHECK(g["idle_share_active"].get<double>() == doctest::Approx(static_cast<double>(gaps) / (busy + gaps)));
  CHECK(g["host_speedup_bound"].get<double>() == doctest::Approx(static_cast<double>(busy + gaps) / busy));
  REQUIRE(g["top_kernels"].size() == 2);
  CHECK(g["top_kernels"][0]["name"] == "sgemm_128x64<float>");
  CHECK(g["top_kernels"][0]["count"] == 100);
  CHECK(g["top_kernels"][0]["total_ns"] == 100 * 30 * kUs);
  CHECK(g["top_kernels"][1]["name"] == "elementwise_add");
  CHECK(g["top_kernels"][1]["total_ns"] == 100 * 10 * kUs);
  REQUIRE(g["ops"].size() == 3);
  CHECK(g["ops"][0]["kind"] == "kernel");
  CHECK(g["ops"][1]["kind"] == "HtoD");
  CHECK(g["ops"][1]["bytes"] == 1 << 20);
  CHECK(g["ops"][2]["kind"] == "DtoH");
  CHECK(g["launch_calls"]["count"] == 202);
  REQUIRE(g["devices"].size() == 1);
  CHECK(g["devices"][0]["busy_ns"] == busy);
}

TEST_CASE("report: GPU bound and host bound verdicts") {
  Dir d;
  auto r = run_amdahl("report " + d.gpu + " --format json");
  REQUIRE(r.rc == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["bound"] == "gpu_bound");
  CHECK(j["verdict"].get<std::string>().rfind("GPU bound", 0) == 0);
  r = run_amdahl("report " + d.host + " --format json");
  REQUIRE(r.rc == 0);
  j = nlohmann::json::parse(r.out);
  CHECK(j["bound"] == "host_bound");
  // 10 x 1 ms busy in a 55 ms active span: idle 45/55, all of it in 5 ms gaps.
  CHECK(j["gpu"]["idle_share_active"].get<double>() == doctest::Approx(45.0 / 55.0));
  CHECK(j["gpu"]["short_gap_share"].get<double>() == doctest::Approx(0.0));
  CHECK(j["gpu"]["host_speedup_bound"].get<double>() == doctest::Approx(5.5));
  r = run_amdahl("report " + d.host);
  CHECK(r.rc == 0);
  CHECK(r.out.find("verdict: host bound") != std::string::npos);
}

TEST_CASE("report --format html|markdown|csv: the GPU-only report") {
  Dir d;
  auto r = run_amdahl("report " + d.launch + " --format html -o " + d.p("r.html"));
  CHECK(r.rc == 0);
  const std::string html = test::slurp(d.p("r.html"));
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(html.find("GPU only") != std::string::npos);
  CHECK(html.find("sgemm_128x64&lt;float&gt;") != std::string::npos);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("launch bound") != std::string::npos);
  r = run_amdahl("report " + d.launch + " --format markdown");
  CHECK(r.rc == 0);
  CHECK(r.out.rfind("## amdahl report (GPU only)", 0) == 0);
  CHECK(r.out.find("Top kernels by time") != std::string::npos);
  r = run_amdahl("report " + d.launch + " --format csv");
  CHECK(r.rc == 0);
  CHECK(r.out.rfind("kernel,count,total_ns,share_of_kernel_time\r\n", 0) == 0);
  CHECK(r.out.find("sgemm_128x64<float>,100,3000000,") != std::string::npos);
}

TEST_CASE("report: neither GPU records nor ranges stays an error (exit 2)") {
  Dir d;
  const auto r = run_amdahl("report " + d.empty);
  CHECK(r.rc == 2);
  CHECK(r.out.empty());
  CHECK(r.err.rfind("amdahl: error: ", 0) == 0);
  CHECK(r.err.find("no GPU records") != std::string::npos);
  CHECK(r.err.find('\n') == r.err.size() - 1);
}

TEST_CASE("whatif on a GPU-only profile: still bad input, one line") {
  Dir d;
  const auto r = run_amdahl("whatif " + d.launch + " --speedup gpu_compute=2");
  CHECK(r.rc == 2);
  CHECK(r.err.rfind("amdahl: error: ", 0) == 0);
}
