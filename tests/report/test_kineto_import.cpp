// Kineto (PyTorch profiler) import: the hand-made trace in tests/data, plain and gzipped, into a
// profile that the analyzer reads; bad inputs.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <utility>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <zlib.h>

#include "amdahl/analysis/errors.hpp"
#include "amdahl/analysis/report.hpp"
#include "amdahl/report/kineto_import.hpp"

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
  report::KinetoImportStats st;
  const auto p = report::import_kineto_file(data_path("kineto_small.json"), {}, &st);
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
  const auto* disk = rep.find_stage("disk_io");
  REQUIRE(disk);
  CHECK(disk->fraction == doctest::Approx(3000.0 / 8100.0).epsilon(0.01));
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
  const auto a = report::import_kineto_file(data_path("kineto_small.json"));
  const auto b = report::import_kineto_file(gz);
  CHECK(a.records.ranges.size() == b.records.ranges.size());
  CHECK(a.records.gpu_ops.size() == b.records.gpu_ops.size());
  CHECK(a.records.gpu_ops.back().end_ns == b.records.gpu_ops.back().end_ns);
  // A truncated gzip file is bad input.
  {
    std::ofstream out("kineto_truncated.json.gz", std::ios::binary);
    const std::string all = read(gz);
    out << all.substr(0, all.size() / 2);
  }
  CHECK_THROWS_AS(report::import_kineto_file("kineto_truncated.json.gz"), analysis::InputError);
  std::remove(gz.c_str());
  std::remove("kineto_truncated.json.gz");
}

TEST_CASE("kineto import: bad inputs are InputError with the file named") {
  CHECK_THROWS_AS(report::import_kineto_file("/nonexistent/trace.json"), analysis::InputError);
  CHECK_THROWS_AS(report::import_kineto_json("{not json", "x.json"), analysis::InputError);
  CHECK_THROWS_AS(report::import_kineto_json("{\"a\": 1}", "x.json"), analysis::InputError);
  CHECK_THROWS_AS(report::import_kineto_json("{\"traceEvents\": []}", "x.json"), analysis::InputError);
  try {
    report::import_kineto_json("{\"traceEvents\": [{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"ts\":1,\"dur\":2}]}",
                               "only_cpu_ops.json");
    FAIL("expected an InputError");
  } catch (const analysis::InputError& e) {
    CHECK(std::string(e.what()).find("only_cpu_ops.json") != std::string::npos);
  }
  // A bare event array (the other Chrome trace form) is accepted; string pids are tolerated.
  const auto p = report::import_kineto_json(
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
      report::import_kineto_json(text, "deep.json");
      FAIL("expected an InputError");
    } catch (const analysis::InputError& e) {
      CHECK(std::string(e.what()).find("deep.json") != std::string::npos);
      CHECK(std::string(e.what()).find("deeper than " + std::to_string(report::kMaxJsonDepth)) != std::string::npos);
    }
  }
  // At the limit it imports; brackets inside strings (and escaped quotes) are not nesting.
  std::string ok = head;
  const std::size_t room = report::kMaxJsonDepth - 3;  // the document, traceEvents, the event
  for (std::size_t i = 0; i < room; ++i) ok += "[";
  for (std::size_t i = 0; i < room; ++i) ok += "]";
  ok += "},{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"[[[[\\\"{{{{\",\"ts\":1,\"dur\":1}]}";
  const auto p = report::import_kineto_json(ok, "limit.json");
  CHECK(p.records.ranges.size() == 2);
  std::string over = head;
  for (std::size_t i = 0; i <= room; ++i) over += "[";
  for (std::size_t i = 0; i <= room; ++i) over += "]";
  over += "}]}";
  CHECK_THROWS_AS(report::import_kineto_json(over, "over.json"), analysis::InputError);
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
  format::Profile p = report::import_kineto_file(data_path("kineto_h200_resnet.json.gz"));
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
