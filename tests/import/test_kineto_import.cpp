// Kineto (PyTorch profiler) import: the hand-made trace in tests/data, plain and gzipped, into a
// profile that the analyzer reads; bad inputs; the import rules (steps from ProfilerStep#N, else
// from Optimizer.step; the DataLoader's __next__ as data_loading; the notes) on synthetic traces
// (kineto_synth.hpp); real H200 traces.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <utility>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <zlib.h>

#include "amdahl/analysis/errors.hpp"
#include "amdahl/analysis/report.hpp"
#include "amdahl/analysis/whatif.hpp"
#include "../../import/src/kineto_loader_lane.hpp"
#include "amdahl/import/kineto_import.hpp"
#include "amdahl/render/renderers.hpp"
#include "amdahl/render/finding_text.hpp"
#include "../support/kineto_synth.hpp"

using namespace amdahl;

namespace {
std::string data_path(const char* name) {
  const char* src = std::getenv("AMDAHL_SOURCE_DIR");
  return std::string(src ? src : ".") + "/tests/data/" + name;
}
std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

TEST_CASE("kineto import: records, correlation, devices, stage rules") {
  kineto::KinetoImportStats st;
  const auto p = kineto::import_kineto_file(data_path("kineto_small.json"), {}, &st);
  const auto& rs = p.records;
  // 3 steps x (ProfilerStep, DataLoader __next__, disk_io, Optimizer.step) user annotations.
  CHECK(st.ranges == 12);
  CHECK(st.api_calls == 18);
  CHECK(st.gpu_ops == 15);
  CHECK(st.skipped_cpu_ops == 12);  // 9 cpu_op + 3 python_function
  CHECK(st.gpu_ops_without_call == 0);
  std::size_t htod = 0, dtoh = 0, memsets = 0;
  for (const auto& op : rs.gpu_ops) {
    CHECK(op.pid == 4242);  // the launching process, not the GPU's pseudo pid
    CHECK(op.stream == 7);
    if (op.copy_kind == format::CopyKind::HtoD) {
      ++htod;
      CHECK(op.bytes == 4194304);
      CHECK(op.src_kind == format::MemKind::Pageable);
      CHECK(op.dst_kind == format::MemKind::Device);
    }
    if (op.copy_kind == format::CopyKind::DtoH) ++dtoh;
    if (op.kind == format::GpuOpKind::Memset) ++memsets;
  }
  CHECK(htod == 3);
  CHECK(dtoh == 3);
  CHECK(memsets == 3);
  // Microseconds (floats) became nanoseconds: the second step starts at 9100.125 us.
  bool found = false;
  for (const auto& r : rs.ranges)
    if (rs.str(r.name) == "ProfilerStep#1") {
      found = true;
      CHECK(r.start_ns == 9'100'125);
      CHECK(r.end_ns - r.start_ns == 8'099'500);
    }
  CHECK(found);
  // Nesting: disk_io inside the DataLoader range inside the step.
  for (const auto& r : rs.ranges)
    if (rs.str(r.name) == "disk_io") CHECK(r.depth == 2);
  REQUIRE(rs.devices.size() == 1);
  CHECK(rs.str(rs.devices[0].name) == "NVIDIA H200");
  CHECK(p.meta.at("stage_rules").find("ProfilerStep#*") != std::string::npos);

  // The analyzer reads it: steps from ProfilerStep#N, the DataLoader as input time.
  const auto rep = analysis::analyze(p);
  CHECK(rep.total_steps == 3);
  CHECK(rep.steps == 2);
  // The DataLoader range (3000 us a step) is data_loading but for the record_function("disk_io")
  // inside it (2000 us), which keeps its own stage (innermost wins).
  const auto* disk = rep.find_stage("disk_io");
  REQUIRE(disk);
  CHECK(disk->fraction == doctest::Approx(2000.0 / 8100.0).epsilon(0.01));
  const auto* loading = rep.find_stage("data_loading");
  REQUIRE(loading);
  CHECK(loading->fraction == doctest::Approx(1000.0 / 8100.0).epsilon(0.01));
  CHECK(p.meta.at("kineto_steps") == "ProfilerStep");
  const auto* gpu = rep.find_stage("gpu_compute");
  REQUIRE(gpu);
  CHECK(gpu->fraction > 0.4);  // the stream synchronize waits on the conv kernel
  CHECK(rep.gpu.present);
}

TEST_CASE("kineto import: gzipped trace gives the same profile") {
  const std::string text = read(data_path("kineto_small.json"));
  const std::string gz = "kineto_small_test.json.gz";
  gzFile f = gzopen(gz.c_str(), "wb");
  REQUIRE(f);
  REQUIRE(gzwrite(f, text.data(), static_cast<unsigned>(text.size())) == static_cast<int>(text.size()));
  gzclose(f);
  const auto a = kineto::import_kineto_file(data_path("kineto_small.json"));
  const auto b = kineto::import_kineto_file(gz);
  CHECK(a.records.ranges.size() == b.records.ranges.size());
  CHECK(a.records.gpu_ops.size() == b.records.gpu_ops.size());
  CHECK(a.records.gpu_ops.back().end_ns == b.records.gpu_ops.back().end_ns);
  // A truncated gzip file is bad input.
  {
    std::ofstream out("kineto_truncated.json.gz", std::ios::binary);
    const std::string all = read(gz);
    out << all.substr(0, all.size() / 2);
  }
  CHECK_THROWS_AS(kineto::import_kineto_file("kineto_truncated.json.gz"), analysis::InputError);
  std::remove(gz.c_str());
  std::remove("kineto_truncated.json.gz");
}

TEST_CASE("kineto import: bad inputs are InputError with the file named") {
  CHECK_THROWS_AS(kineto::import_kineto_file("/nonexistent/trace.json"), analysis::InputError);
  CHECK_THROWS_AS(kineto::import_kineto_json("{not json", "x.json"), analysis::InputError);
  CHECK_THROWS_AS(kineto::import_kineto_json("{\"a\": 1}", "x.json"), analysis::InputError);
  CHECK_THROWS_AS(kineto::import_kineto_json("{\"traceEvents\": []}", "x.json"), analysis::InputError);
  try {
    kineto::import_kineto_json("{\"traceEvents\": [{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"ts\":1,\"dur\":2}]}",
                               "only_cpu_ops.json");
    FAIL("expected an InputError");
  } catch (const analysis::InputError& e) {
    CHECK(std::string(e.what()).find("only_cpu_ops.json") != std::string::npos);
  }
  // A bare event array (the other Chrome trace form) is accepted; string pids are tolerated.
  const auto p = kineto::import_kineto_json(
      "[{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"disk_io\",\"pid\":\"Spans\",\"tid\":\"thread 12\","
      "\"ts\":10.5,\"dur\":2.25}]",
      "bare.json");
  REQUIRE(p.records.ranges.size() == 1);
  CHECK(p.records.ranges[0].tid == 12);
  CHECK(p.records.ranges[0].start_ns == 10'500);
  CHECK(p.records.ranges[0].end_ns == 12'750);
}

// Issue 18, crashes: args nested 1 000 000 deep (2 MB) killed `amdahl import` with SIGSEGV (the
// JSON library copies recursively). The depth is checked before parsing: an InputError naming
// the limit, whatever the nesting is made of; strings holding brackets do not count.
TEST_CASE("kineto import: JSON nested past the depth limit is an InputError, not a crash") {
  const std::string head =
      "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"step\",\"pid\":1,\"tid\":1,"
      "\"ts\":1,\"dur\":5,\"args\":";
  const std::size_t deep = 1'000'000;
  for (const auto& [open, close] : {std::pair<std::string, std::string>{"[", "]"}, {"{\"a\":", "}"}}) {
    std::string text = head;
    for (std::size_t i = 0; i < deep; ++i) text += open;
    text += "1";
    for (std::size_t i = 0; i < deep; ++i) text += close;
    text += "}]}";
    try {
      kineto::import_kineto_json(text, "deep.json");
      FAIL("expected an InputError");
    } catch (const analysis::InputError& e) {
      CHECK(std::string(e.what()).find("deep.json") != std::string::npos);
      CHECK(std::string(e.what()).find("deeper than " + std::to_string(kineto::kMaxJsonDepth)) != std::string::npos);
    }
  }
  // At the limit it imports; brackets inside strings (and escaped quotes) are not nesting.
  std::string ok = head;
  const std::size_t room = kineto::kMaxJsonDepth - 3;  // the document, traceEvents, the event
  for (std::size_t i = 0; i < room; ++i) ok += "[";
  for (std::size_t i = 0; i < room; ++i) ok += "]";
  ok += "},{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"[[[[\\\"{{{{\",\"ts\":1,\"dur\":1}]}";
  const auto p = kineto::import_kineto_json(ok, "limit.json");
  CHECK(p.records.ranges.size() == 2);
  std::string over = head;
  for (std::size_t i = 0; i <= room; ++i) over += "[";
  for (std::size_t i = 0; i <= room; ++i) over += "]";
  over += "}]}";
  CHECK_THROWS_AS(kineto::import_kineto_json(over, "over.json"), analysis::InputError);
}

// A real torch.profiler trace (CPU + CUDA activities) of scripts/make_kineto_trace.py, made on
// the H200 on 2026-12-02 by scripts/bench_kineto.sh (cpu_op and flow events and bulky args
// removed; the importer keeps neither). amdahl's own profile of the same program in the same
// call (NVTX + CUPTI, a second run: CUPTI takes one subscriber per process) gave disk_io
// 5.16%, cpu_preprocess 16.39%, h2d 13.19%, gpu_compute 57.94%, other 7.32% over 13 steps
// (docs/reports.md). The import must land within 5 points of each (issue 7). Those figures
// were taken when launch calls inside a stage's ranges counted as `other`; since issue 16 they
// are the stage's host part, which moves time from `other` to gpu_compute (launch calls are
// most of that run's 7.32% `other`): gpu_compute is compared together with `other`, whose sum
// that rule does not change.
TEST_CASE("kineto import: a real H200 trace gives amdahl's own fractions within 5 points") {
  format::Profile p = kineto::import_kineto_file(data_path("kineto_h200_resnet.json.gz"));
  analysis::AnalysisOptions opt;
  const analysis::Report r = analysis::analyze(std::move(p), opt);
  CHECK(r.steps >= 10);
  const std::pair<const char*, double> own[] = {
      {"disk_io", 5.16}, {"cpu_preprocess", 16.39}, {"h2d", 13.19}, {"gpu_compute", 57.94 + 7.32}};
  double sum = 0;
  for (const auto& [stage, pct] : own) {
    const analysis::StageRow* s = r.find_stage(stage);
    REQUIRE_MESSAGE(s != nullptr, stage);
    const double got = s->fraction + (std::string(stage) == "gpu_compute" ? r.stages.back().fraction : 0.0);
    INFO(stage << ": imported " << got * 100 << "%, own profile " << pct << "%");
    CHECK(std::abs(got * 100 - pct) <= 5.0);
    sum += s->fraction;
  }
  CHECK(sum < 1.0);
}

// ---- The import rules on synthetic torch 2.x traces (kineto_synth.hpp) ----

namespace {

// The report note that starts with `prefix` ("" when none).
std::string note(const analysis::Report& r, const std::string& prefix) {
  for (const auto& n : render::to_text(r.notes))
    if (n.rfind(prefix, 0) == 0) return n;
  return {};
}

std::size_t count_ranges(const format::Profile& p, const std::string& prefix) {
  std::size_t n = 0;
  for (const auto& r : p.records.ranges)
    if (p.records.str(r.name).rfind(prefix, 0) == 0) ++n;
  return n;
}

double fraction(const analysis::Report& r, const char* stage) {
  const auto* s = r.find_stage(stage);
  return s ? s->fraction : 0.0;
}

// A stage with no time (the canonical stages are always listed).
bool no_time(const analysis::Report& r, const char* stage) {
  const auto* s = r.find_stage(stage);
  return !s || (s->exposed_ns == 0 && s->total_ns == 0);
}

}  // namespace

TEST_CASE("kineto import: no ProfilerStep -> one step per Optimizer.step, the time before the first excluded") {
  test::SynthTrace o;  // 4 workers, 6 iterations, no prof.step()
  kineto::KinetoImportStats st;
  const auto p = kineto::import_kineto_json(test::synth_kineto_trace(o), "w4.json", {}, &st);
  CHECK(st.step_source == "Optimizer.step");
  CHECK(st.steps == 6);
  CHECK(count_ranges(p, "amdahl_step#") == 6);
  CHECK(p.meta.at("kineto_steps") == "Optimizer.step");
  // Step k ends where Optimizer.step k ends; step k+1 begins there.
  std::vector<const format::RangeRec*> steps, opt;
  for (const auto& r : p.records.ranges) {
    if (p.records.str(r.name).rfind("amdahl_step#", 0) == 0) steps.push_back(&r);
    if (p.records.str(r.name).rfind("Optimizer.step#", 0) == 0) opt.push_back(&r);
  }
  REQUIRE(steps.size() == opt.size());
  for (std::size_t k = 0; k < steps.size(); ++k) {
    CHECK(steps[k]->end_ns == opt[k]->end_ns);
    CHECK(steps[k]->pid == 4242);
    CHECK(steps[k]->tid == 4242);
    if (k > 0) CHECK(steps[k]->start_ns == opt[k - 1]->end_ns);
  }
  // The first step opens at the first batch fetch (the workers starting), not at the trace's
  // start: the setup before it is in no step.
  CHECK(steps[0]->start_ns == static_cast<std::int64_t>(o.setup_us * 1000));

  const auto rep = analysis::analyze(p);
  CHECK(rep.total_steps == 6);
  CHECK(rep.warmup == 1);  // the first step holds the workers' start (1.2 s)
  CHECK(rep.steps == 5);
  CHECK(rep.window.start_ns == opt[0]->end_ns);
  CHECK(rep.window.end_ns == opt[5]->end_ns);
  CHECK(rep.wall_ns == doctest::Approx(5 * o.iteration_us() * 1000).epsilon(1e-9));
  // With no warm-up the window still starts at the first step, after the setup.
  analysis::AnalysisOptions no_warmup;
  no_warmup.warmup = 0;
  const auto all = analysis::analyze(p, no_warmup);
  CHECK(all.steps == 6);
  CHECK(all.window.start_ns == static_cast<std::int64_t>(o.setup_us * 1000));
  CHECK(note(rep, "steps: ").find("one step per Optimizer.step") != std::string::npos);
}

TEST_CASE("kineto import: ProfilerStep#N ranges are the steps when present") {
  test::SynthTrace o;
  o.profiler_steps = true;
  kineto::KinetoImportStats st;
  const auto p = kineto::import_kineto_json(test::synth_kineto_trace(o), "w4_steps.json", {}, &st);
  CHECK(st.step_source == "ProfilerStep");
  CHECK(st.steps == 6);
  CHECK(count_ranges(p, "amdahl_step#") == 0);  // none added
  const auto rep = analysis::analyze(p);
  CHECK(rep.total_steps == 6);
  CHECK(rep.steps == 5);
  CHECK(note(rep, "steps: ").empty());
  // ProfilerStep#1 starts with its iteration's fetch.
  CHECK(rep.window.start_ns ==
        static_cast<std::int64_t>((o.setup_us + o.first_fetch_us + (o.iteration_us() - o.fetch_us)) * 1000));
}

TEST_CASE("kineto import: with DataLoader workers the __next__ wait is data_loading, never disk_io") {
  test::SynthTrace o;  // input bound: a 30 ms wait for the workers in a 40.85 ms iteration
  const auto p = kineto::import_kineto_json(test::synth_kineto_trace(o), "w4.json");
  const auto rep = analysis::analyze(p);
  CHECK(no_time(rep, "disk_io"));
  CHECK(no_time(rep, "cpu_preprocess"));
  CHECK(fraction(rep, "data_loading") == doctest::Approx(o.fetch_us / o.iteration_us()).epsilon(0.02));
  const auto* loading = rep.find_stage("data_loading");
  REQUIRE(loading);
  CHECK(!loading->on_gpu);
  // The verdict counts it as input (disk_io + cpu_preprocess together).
  CHECK(render::to_text(rep.verdict).rfind("input bound: ", 0) == 0);
  CHECK(render::to_text(rep.verdict).find("data loading") != std::string::npos);
  // The note: a wait for worker processes the trace does not see, not splittable.
  const std::string n = note(rep, "data_loading: ");
  REQUIRE(!n.empty());
  CHECK(n.find("waited for batches from the DataLoader's worker processes") != std::string::npos);
  CHECK(n.find("cannot split this time into disk_io and cpu_preprocess") != std::string::npos);
  CHECK(n.find("6 calls; 5 of them, 150.0 ms, in the 5 steps after the automatic warm-up") != std::string::npos);
  // The notes travel in the profile (meta 'notes'), one per line.
  CHECK(p.meta.at("notes").find("data_loading: ") != std::string::npos);
}

TEST_CASE("kineto import: num_workers=0 loading is the same data_loading stage, as work, with the same note") {
  test::SynthTrace o;
  o.workers = 0;
  o.first_fetch_us = o.fetch_us;
  const auto p = kineto::import_kineto_json(test::synth_kineto_trace(o), "w0.json");
  const auto rep = analysis::analyze(p);
  CHECK(no_time(rep, "disk_io"));
  // The fetch's aten ops (inside the __next__ range) belong to it.
  CHECK(fraction(rep, "data_loading") == doctest::Approx(o.fetch_us / o.iteration_us()).epsilon(0.02));
  CHECK(render::to_text(rep.verdict).rfind("input bound: ", 0) == 0);
  const std::string n = note(rep, "data_loading: ");
  REQUIRE(!n.empty());
  CHECK(n.find("num_workers=0") != std::string::npos);
  CHECK(n.find("not a wait") != std::string::npos);
  CHECK(n.find("cannot split this time into disk_io and cpu_preprocess") != std::string::npos);
}

TEST_CASE("kineto import: the training thread's time in no stage is explained by its top-level ranges") {
  test::SynthTrace o;
  const auto p = kineto::import_kineto_json(test::synth_kineto_trace(o), "w4.json");
  const auto rep = analysis::analyze(p);
  const std::string n = note(rep, "other: ");
  REQUIRE(!n.empty());
  INFO(n);
  // 5 analysed steps: per iteration everything but the fetch, zero_grad and the optimizer step.
  char expect[96];
  std::snprintf(expect, sizeof expect, "other: %.1f ms of the training thread's %.1f ms",
                5 * (o.iteration_us() - o.fetch_us - test::SynthTrace::kZeroUs - test::SynthTrace::kStepUs) / 1e3,
                5 * o.iteration_us() / 1e3);
  CHECK(n.find(expect) != std::string::npos);
  // Top-level ranges by name, largest first; nested ones (aten::convolution, aten::copy_) and
  // the stage ranges are not listed; the rest is in no range (backward() and the gaps).
  CHECK(n.find("its largest top-level ranges: aten::conv2d 15.0 ms (5x), aten::to 5.0 ms (5x), "
               "aten::cross_entropy_loss 5.0 ms (5x)") != std::string::npos);
  CHECK(n.find("aten::convolution") == std::string::npos);
  CHECK(n.find("aten::copy_") == std::string::npos);
  CHECK(n.find("Optimizer") == std::string::npos);
  std::snprintf(expect, sizeof expect, "; %.1f ms is inside no traced range",
                5 * (o.backward_us + 4 * test::SynthTrace::kOpGapUs + test::SynthTrace::kGapUs) / 1e3);
  CHECK(n.find(expect) != std::string::npos);
}

TEST_CASE("kineto import: neither ProfilerStep nor Optimizer.step: no steps, and a note says so") {
  test::SynthTrace o;
  o.optimizer = false;
  kineto::KinetoImportStats st;
  const auto p = kineto::import_kineto_json(test::synth_kineto_trace(o), "nostep.json", {}, &st);
  CHECK(st.step_source == "none");
  CHECK(st.steps == 0);
  const auto rep = analysis::analyze(p);
  CHECK(rep.steps == 0);
  CHECK(note(rep, "steps: ").find("neither ProfilerStep#N nor Optimizer.step") != std::string::npos);
  CHECK(!note(rep, "data_loading: ").empty());
}

TEST_CASE("kineto import: trace names in the notes stay one line of valid UTF-8") {
  // Two ProfilerSteps; in each a top-level op whose name holds a newline, and one of 150 two-byte
  // characters (cut to fit a note without splitting a character).
  std::string long_name;
  for (int i = 0; i < 150; ++i) long_name += "\xc3\xa9";
  nlohmann::json ev = nlohmann::json::array();
  for (int k = 0; k < 2; ++k) {
    const double t = 1000.0 * k;
    ev.push_back({{"ph", "X"}, {"cat", "user_annotation"}, {"name", "ProfilerStep#" + std::to_string(k)},
                  {"pid", 1}, {"tid", 1}, {"ts", t}, {"dur", 1000}});
    ev.push_back({{"ph", "X"}, {"cat", "cpu_op"}, {"name", "aten::a\nb"}, {"pid", 1}, {"tid", 1}, {"ts", t + 10},
                  {"dur", 300}});
    ev.push_back({{"ph", "X"}, {"cat", "cpu_op"}, {"name", long_name}, {"pid", 1}, {"tid", 1}, {"ts", t + 400},
                  {"dur", 200}});
    ev.push_back({{"ph", "X"}, {"cat", "user_annotation"}, {"name", "cpu_preprocess"}, {"pid", 1}, {"tid", 1},
                  {"ts", t + 700}, {"dur", 200}});
  }
  const auto p = kineto::import_kineto_json(nlohmann::json{{"traceEvents", ev}}.dump(), "names.json");
  const auto rep = analysis::analyze(p);
  const std::string n = note(rep, "other: ");
  REQUIRE(!n.empty());
  CHECK(n.find('\n') == std::string::npos);
  CHECK(n.find("aten::a b 0.3 ms (1x)") != std::string::npos);
  CHECK(n.find("...") != std::string::npos);
  CHECK_NOTHROW((void)render::report_to_json(rep).dump());
}

// A real torch.profiler trace (H200, torch 2.11) of workloads/python/train_imagefolder.py:
// ImageFolder of JPEGs, DataLoader num_workers=2, resnet18, batch 16, 8 steps, bf16 AMP, made by
// scripts/kineto_wrap.py (prof.step() from an optimizer post-hook; torch 2.11 left no
// ProfilerStep#N ranges in it, so the steps come from Optimizer.step). 850 KB.
TEST_CASE("kineto import: a real ImageFolder trace with 2 DataLoader workers") {
  const std::string path = data_path("kineto_imagefolder_w2.json.gz");
  REQUIRE(std::ifstream(path).good());
  kineto::KinetoImportStats st;
  format::Profile p = kineto::import_kineto_file(path, {}, &st);
  CHECK(st.steps == 8);
  CHECK(st.dataloader_ranges == 8);
  const analysis::Report r = analysis::analyze(std::move(p));
  CHECK(r.steps == 7);  // the first (worker start, cuDNN autotuning) is the automatic warm-up
  CHECK(no_time(r, "disk_io"));
  CHECK(no_time(r, "cpu_preprocess"));
  bool loading = false;
  for (const auto& s : r.stages)
    if (s.name == "data_loading") loading = s.exposed_ns > 0;
  CHECK(loading);
  CHECK(!note(r, "data_loading: ").empty());
  CHECK(!note(r, "other: ").empty());
  CHECK(note(r, "other: ").find("aten::conv2d") != std::string::npos);
}

TEST_CASE("kineto import: the loader lane is inferred from regular waits (bursts of N workers), not from jitter") {
  using kineto::LoaderCall;
  constexpr std::int64_t ms = 1'000'000;
  // 4 workers handing over in bursts: every 4th fetch waits 100 ms, the other three are ready.
  std::vector<LoaderCall> burst;
  std::int64_t t = 0;
  burst.push_back({t, t + 300 * ms});  // the first fetch waits for the workers to start
  t += 310 * ms;
  for (int i = 1; i < 24; ++i) {
    const std::int64_t wait = i % 4 == 0 ? 100 * ms : ms / 10;
    burst.push_back({t, t + wait});
    t += wait + 20 * ms;
  }
  const auto lane = kineto::infer_loader_lane(burst);
  CHECK(lane.inferred);
  CHECK(lane.waited == 5);
  REQUIRE(lane.ranges.size() == 6);  // the first call and the five waits after it
  CHECK(lane.produces.size() == burst.size());
  CHECK(lane.consumes.size() == burst.size());
  // A waited batch is produced from the previous hand-off to its own.
  CHECK(lane.ranges[2].start_ns == burst[4].end_ns);
  CHECK(lane.ranges[2].end_ns == burst[8].end_ns);
  // A ready batch was produced no later than the previous hand-off.
  CHECK(lane.produces[5].first == burst[4].end_ns);
  CHECK(lane.consumes[5].first == burst[5].end_ns);

  // The GPU or the training thread is the bottleneck: rare short waits are jitter.
  std::vector<LoaderCall> jitter;
  t = 0;
  for (int i = 0; i < 40; ++i) {
    const std::int64_t wait = i == 0 ? 300 * ms : (i % 13 == 0 ? 2 * ms : ms / 10);
    jitter.push_back({t, t + wait});
    t += wait + 40 * ms;
  }
  CHECK_FALSE(kineto::infer_loader_lane(jitter).inferred);
  // Too few calls to say.
  CHECK_FALSE(kineto::infer_loader_lane(std::vector<LoaderCall>(burst.begin(), burst.begin() + 5)).inferred);
}

TEST_CASE("kineto import: when the workers are the bottleneck the loading is on the critical path") {
  test::SynthTrace o;  // a 30 ms wait for the workers in every 40.85 ms iteration
  o.iterations = 24;
  const auto p = kineto::import_kineto_json(test::synth_kineto_trace(o), "w4-long.json");
  CHECK(p.meta.at("stage_rules").find("-> wait") != std::string::npos);
  const auto rep = analysis::analyze(p);
  // The workers produce one batch per iteration: the whole step is loading (the training
  // thread's 10.85 ms of work overlaps it), not the 73% the waits alone would say.
  CHECK(fraction(rep, "data_loading") > 0.95);
  CHECK(render::to_text(rep.verdict).rfind("input bound: ", 0) == 0);
  // The critical path runs on the inferred lane.
  CHECK(render::to_text(rep.explanation).find("DataLoader workers (inferred)") != std::string::npos);
  CHECK(note(rep, "data_loading: ").find("the workers were the bottleneck") != std::string::npos);
  // With 6 iterations (too few to tell) the waits stay data_loading work, as before.
  test::SynthTrace shrt;
  const auto p6 = kineto::import_kineto_json(test::synth_kineto_trace(shrt), "w4.json");
  CHECK(p6.meta.at("stage_rules").find("-> wait") == std::string::npos);
}
