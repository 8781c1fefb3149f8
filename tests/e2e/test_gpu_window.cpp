// `amdahl profile --gpu-steps FROM:TO` end to end on cpu_pipeline (no GPU needed: the window's
// marks come from the collector core, which counts `step` ranges): the profile carries
// gpu_trace_on / gpu_trace_off marks at the starts of steps FROM and TO, the analysis keeps to
// the steps inside (less its warm-up), says so, and the figures stay right; bad values are
// refused with one line and exit code 1.
#include <sqlite3.h>

#include <string>

#include "e2e_support.hpp"

namespace {

using namespace amdahl::e2e;

struct Init {
  Init() { require_built({cpu_pipeline_bin(), amdahl_bin(), collector_lib()}); }
} init;

std::string window_marks(const std::string& profile) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(profile.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  std::string out;
  auto cb = [](void* o, int n, char** v, char**) {
    for (int i = 0; i < n; ++i) *static_cast<std::string*>(o) += std::string(v[i] ? v[i] : "") + (i + 1 < n ? "=" : ";");
    return 0;
  };
  const char* q =
      "SELECT s.value, m.payload_int FROM marks m JOIN strings s ON s.id = m.name_id "
      "WHERE s.value LIKE 'gpu_trace_%' ORDER BY m.ts_ns";
  char* err = nullptr;
  const int rc = sqlite3_exec(db, q, cb, &out, &err);
  const std::string msg = err ? err : "";
  sqlite3_free(err);
  sqlite3_close(db);
  REQUIRE_MESSAGE(rc == SQLITE_OK, msg);
  return out;
}

}  // namespace

TEST_CASE("--gpu-steps: marks at the window's steps, analysis keeps to the steps inside") {
  ScratchDir scratch;
  const std::string out = scratch.file("win.amdahl");
  // 2 warm-up + 12 steps = step ranges 0..13; window 4:10 holds steps 4..9.
  run_ok({amdahl_bin(), "profile", "-o", out, "--gpu-steps", "4:10", "--", cpu_pipeline_bin(), "--steps", "12",
          "--warmup-steps", "2", "--loader-threads", "0", "--cost", "sleep", "--io-ms", "2", "--preprocess-ms",
          "4", "--h2d-ms", "1", "--compute-ms", "3"},
         scratch);
  CHECK(window_marks(out) == "gpu_trace_on=4;gpu_trace_off=10;");
  const nlohmann::json rep = report_json(out, scratch);
  INFO(rep.dump(2));
  // 6 steps inside the window, the first dropped as warm-up.
  CHECK(rep["steps"].get<int>() == 5);
  CHECK(ms_per_step(rep) == doctest::Approx(10.0).epsilon(0.05));
  CHECK(stage(rep, "cpu_preprocess")["fraction"].get<double>() == doctest::Approx(0.4).epsilon(0.08));
  bool noted = false;
  for (const auto& n : rep["notes"]) noted |= n.get<std::string>().find("--gpu-steps") != std::string::npos;
  CHECK(noted);

  // Without the option: no marks, all steps but the warm-up analysed.
  const std::string plain = profile("plain", cpu_pipeline_cmd({"--steps", "12", "--warmup-steps", "2", "--loader-threads",
                                                               "0", "--cost", "sleep", "--io-ms", "2", "--preprocess-ms",
                                                               "4", "--h2d-ms", "1", "--compute-ms", "3"}),
                                    scratch);
  CHECK(window_marks(plain).empty());
  CHECK(report_json(plain, scratch)["steps"].get<int>() >= 11);
}

TEST_CASE("--gpu-steps past the last step: the window never closes, the steps after FROM are analysed") {
  ScratchDir scratch;
  const std::string out = scratch.file("open.amdahl");
  run_ok({amdahl_bin(), "profile", "-o", out, "--gpu-steps", "8:1000", "--", cpu_pipeline_bin(), "--steps", "10",
          "--warmup-steps", "0", "--loader-threads", "0", "--cost", "sleep", "--io-ms", "1", "--preprocess-ms",
          "1", "--h2d-ms", "1", "--compute-ms", "1"},
         scratch);
  CHECK(window_marks(out) == "gpu_trace_on=8;");
  CHECK(report_json(out, scratch)["steps"].get<int>() == 1);  // steps 8, 9; 8 is the warm-up
}

TEST_CASE("--gpu-steps and --gpu-api refuse bad values with one line and exit code 1") {
  ScratchDir scratch;
  for (const char* bad : {"5:5", "7:3", "x:4", "4", "-1:3", ""}) {
    const RunResult r = run({amdahl_bin(), "profile", "-o", scratch.file("x.amdahl"), "--gpu-steps", bad, "--", "true"},
                            scratch);
    INFO(describe({"--gpu-steps", bad}, r));
    CHECK(r.exit_code == 1);
  }
  const RunResult r = run({amdahl_bin(), "profile", "-o", scratch.file("y.amdahl"), "--gpu-api", "some", "--", "true"},
                          scratch);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("--gpu-api must be launch, all or none") != std::string::npos);
}

namespace {

std::string meta_value(const std::string& profile, const std::string& key) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(profile.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  std::string out;
  auto cb = [](void* o, int, char** v, char**) {
    *static_cast<std::string*>(o) = v[0] ? v[0] : "";
    return 0;
  };
  const std::string q = "SELECT value FROM meta WHERE key = '" + key + "'";
  sqlite3_exec(db, q.c_str(), cb, &out, nullptr);
  sqlite3_close(db);
  return out;
}

}  // namespace

TEST_CASE("--gpu-sample: periodic windows, one analysed, the run's step time from every step") {
  ScratchDir scratch;
  const std::string out = scratch.file("sample.amdahl");
  // 2 warm-up + 20 steps = step ranges 0..21; 5/8@2 traces from CUDA's start to step 2 (no CUDA
  // here: only that window's close is marked), then 10-14 and 18-21 (open to the end).
  // AMDAHL_GPU_MARKS=always: marks without CUDA (a CPU-only process is not sampled otherwise).
  run_ok({amdahl_bin(), "profile", "-o", out, "--gpu-sample", "5/8@2", "--", cpu_pipeline_bin(), "--steps", "20",
          "--warmup-steps", "2", "--loader-threads", "0", "--cost", "sleep", "--io-ms", "2", "--preprocess-ms", "4",
          "--h2d-ms", "1", "--compute-ms", "3"},
         scratch, {"AMDAHL_GPU_MARKS=always"});
  CHECK(window_marks(out) == "gpu_trace_off=2;gpu_trace_on=10;gpu_trace_off=15;gpu_trace_on=18;");
  CHECK(meta_value(out, "gpu_schedule") == "5/8@2");
  const nlohmann::json rep = report_json(out, scratch);
  INFO(rep.dump(2));
  // Windows of 5 and 4 steps: the larger (steps 10..14), less its first.
  CHECK(rep["steps"].get<int>() == 4);
  CHECK(rep["first_step"].get<int>() == 11);
  CHECK(ms_per_step(rep) == doctest::Approx(10.0).epsilon(0.05));
  CHECK(stage(rep, "cpu_preprocess")["fraction"].get<double>() == doctest::Approx(0.4).epsilon(0.08));
  REQUIRE(rep.contains("gpu_sampling"));
  CHECK(rep["gpu_sampling"]["windows"] == 2);
  CHECK(rep["gpu_sampling"]["traced_steps"] == 9);
  CHECK(rep["gpu_sampling"]["run_steps"] == 22);
  CHECK(rep["gpu_sampling"]["analysed_window"] == 1);
  CHECK(rep["gpu_sampling"]["run_step_mean_ms"].get<double>() == doctest::Approx(10.0).epsilon(0.1));
  bool noted = false;
  for (const auto& n : rep["notes"]) noted |= n.get<std::string>().rfind("sampled GPU figures:", 0) == 0;
  CHECK(noted);

  // The default schedule without CUDA: recorded in meta, no marks, every step analysed.
  const std::string plain = scratch.file("plain.amdahl");
  run_ok({amdahl_bin(), "profile", "-o", plain, "--", cpu_pipeline_bin(), "--steps", "6", "--warmup-steps", "0",
          "--loader-threads", "0", "--cost", "sleep", "--io-ms", "1", "--preprocess-ms", "1", "--h2d-ms", "1",
          "--compute-ms", "1"},
         scratch);
  CHECK(meta_value(plain, "gpu_schedule") == "10/200@20,2%");
  CHECK(window_marks(plain).empty());
  const RunResult all = run({amdahl_bin(), "profile", "-o", scratch.file("all.amdahl"), "--gpu-steps", "all", "--",
                             "true"},
                            scratch);
  CHECK(all.exit_code == 0);
  CHECK(meta_value(scratch.file("all.amdahl"), "gpu_schedule") == "all");
}

TEST_CASE("--gpu-sample refuses bad values, and --gpu-steps with it, with one line and exit code 1") {
  ScratchDir scratch;
  for (const char* bad : {"5/5", "0/5", "6/5", "5", "5/x", "5/50@", "2:4", "all", ""}) {
    const RunResult r = run({amdahl_bin(), "profile", "-o", scratch.file("x.amdahl"), "--gpu-sample", bad, "--", "true"},
                            scratch);
    INFO(describe({"--gpu-sample", bad}, r));
    CHECK(r.exit_code == 1);
    CHECK_FALSE(file_exists(scratch.file("x.amdahl")));
  }
  const RunResult r = run({amdahl_bin(), "profile", "-o", scratch.file("y.amdahl"), "--gpu-steps", "2/5", "--", "true"},
                          scratch);
  CHECK(r.exit_code == 1);
  const RunResult both = run({amdahl_bin(), "profile", "-o", scratch.file("z.amdahl"), "--gpu-steps", "1:4",
                              "--gpu-sample", "2/5", "--", "true"},
                             scratch);
  CHECK(both.exit_code == 1);
  CHECK(both.err.find("--gpu-steps and --gpu-sample exclude each other") != std::string::npos);
}
