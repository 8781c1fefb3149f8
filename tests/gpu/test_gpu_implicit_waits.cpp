// GPU test: ground truth for the ways a host thread waits on the GPU without an explicit
// synchronize in its stage code (gt_implicit.cu: a full launch queue, an event recorded two
// steps back, cudaFree, a pageable cudaMemcpyAsync, and a pipelined loop's one
// cudaStreamSynchronize). For each mode a base run and a run with one cost really changed are
// profiled with `amdahl profile`; the measured speedup is base / changed ms per step from each
// program's own clock, and
//   * `amdahl whatif base --speedup STAGE=K` (K: the ratio of the spin kernels' durations, or of
//     the copy's bytes) must predict it within 5% (simulated_speedup), and
//   * `amdahl validate base changed` must have |simulated_error| <= 5%.
// Both runs must be in the steady state the program claims (the host does not outrun the GPU's
// busiest stream) and amdahl's window must time the same steps as the program (within 2%). Each
// pair gets up to 2 attempts (a fresh pair of runs): the GPU machine's throughput moves a few per
// cent. A row of figures per mode is printed (MESSAGE, and a markdown row on stdout; appended to
// $AMDAHL_IMPLICIT_TABLE when set). Profiles stay under $TMPDIR (amdahl-implicit-MODE-*).
// The runs are profiled with `--gpu-steps all`: the checks need every timed step traced (with
// the sampled default a 35-step program is traced for its first 20 steps, and the detach at
// step 20 lands in the program's own timing; 2026-12-07 on the H100 all five window checks
// failed that way). AMDAHL_TEST_PROFILE_FLAGS replaces those flags (split at spaces; set but
// empty: `amdahl profile`'s defaults).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "cupti_gpu_util.hpp"

using namespace amdahl::gpu_cupti_test;
using nlohmann::json;

namespace {

constexpr int kAttempts = 2;
constexpr double kBound = 0.05;         // whatif / validate against the measured speedup
constexpr double kWindowBound = 0.02;   // amdahl's ms/step against the program's own
constexpr double kPaceBound = 0.97;     // own ms/step >= this x the busiest GPU stream's ms/step

struct Pair {
  std::string mode;
  std::string stage;   // the stage made faster
  double factor;       // K for `whatif --speedup STAGE=K`
  std::string change;  // for the table
  std::vector<std::string> base, changed;  // gt_implicit flags of the two runs
};

std::string amdahl_bin() { return build_dir() + "/bin/amdahl"; }

double num(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return std::numeric_limits<double>::quiet_NaN();
  return j[key].get<double>();
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

struct Outcome {
  std::string dir;
  json base, changed, whatif, validate;
  double measured_own = 0, measured_window = 0, simulated = 0, classic = 0, validate_sim = 0, validate_err = 0;
  double whatif_err = 0, classic_err = 0;
  double window_base = 0, window_changed = 0;  // amdahl's ms/step of each run
  bool paced_base = false, paced_changed = false, window_ok = false, whatif_ok = false, validate_ok = false;
  bool all() const { return paced_base && paced_changed && window_ok && whatif_ok && validate_ok; }
};

// Runs `amdahl ARGS... --format json` with stdout to DIR/NAME.json; the parsed JSON.
json amdahl_json(const std::string& dir, const std::string& name, std::vector<std::string> args) {
  args.insert(args.begin(), amdahl_bin());
  args.insert(args.end(), {"--format", "json"});
  const std::string out = dir + "/" + name + ".json";
  const int rc = run(args, out);
  INFO("amdahl " << args[1] << " -> " << out);
  REQUIRE(rc == 0);
  return read_json(out);
}

json profile(const std::string& dir, const std::string& tag, const Pair& p, const std::vector<std::string>& flags) {
  std::vector<std::string> argv = {amdahl_bin(), "profile", "-o", dir + "/" + tag + ".amdahl"};
  const char* extra = std::getenv("AMDAHL_TEST_PROFILE_FLAGS");
  std::istringstream words(extra != nullptr ? extra : "--gpu-steps all");
  for (std::string w; words >> w;) argv.push_back(w);
  for (const std::string& a : {std::string("--"), build_dir() + "/bin/gt_implicit", std::string("--mode"), p.mode,
                               std::string("--json"), dir + "/" + tag + ".program.json"})
    argv.push_back(a);
  argv.insert(argv.end(), flags.begin(), flags.end());
  const int rc = run(argv, dir + "/" + tag + ".out");
  INFO("amdahl profile of gt_implicit --mode " << p.mode << " (" << tag << "), output in " << dir);
  REQUIRE(rc == 0);
  return read_json(dir + "/" + tag + ".program.json");
}

// Does the host keep pace with the GPU's busiest stream (it cannot be faster in a steady state:
// if it is, the host ran ahead the whole time and the timed steps are not what the mode claims)?
bool paced(const json& run) { return num(run, "ms_per_step") >= kPaceBound * num(run, "gpu_ms_per_step"); }

Outcome attempt(const Pair& p, int n) {
  Outcome o;
  o.dir = make_temp_dir("implicit-" + p.mode + "-" + std::to_string(n));
  o.base = profile(o.dir, "base", p, p.base);
  o.changed = profile(o.dir, "changed", p, p.changed);
  REQUIRE(o.base["warmup_steps"] == o.changed["warmup_steps"]);
  const std::string warmup = std::to_string(o.base["warmup_steps"].get<int>());
  const std::string base = o.dir + "/base.amdahl", changed = o.dir + "/changed.amdahl";
  o.whatif = amdahl_json(o.dir, "whatif",
                         {"whatif", base, "--warmup", warmup, "--speedup", p.stage + "=" + fmt("%g", p.factor)});
  o.validate = amdahl_json(o.dir, "validate", {"validate", base, changed, "--warmup", warmup});

  o.measured_own = num(o.base, "ms_per_step") / num(o.changed, "ms_per_step");
  o.measured_window = num(o.validate, "measured_speedup");
  o.simulated = num(o.whatif, "simulated_speedup");
  o.classic = num(o.whatif, "naive_speedup");
  o.validate_sim = num(o.validate, "predicted_simulated");
  o.validate_err = num(o.validate, "simulated_error");
  o.whatif_err = o.simulated / o.measured_own - 1;
  o.classic_err = o.classic / o.measured_own - 1;
  o.window_base = o.validate.contains("base") ? num(o.validate["base"], "ms_per_step") : std::nan("");
  o.window_changed = o.validate.contains("improved") ? num(o.validate["improved"], "ms_per_step") : std::nan("");
  o.paced_base = paced(o.base);
  o.paced_changed = paced(o.changed);
  o.window_ok = std::abs(o.window_base / num(o.base, "ms_per_step") - 1) <= kWindowBound &&
                std::abs(o.window_changed / num(o.changed, "ms_per_step") - 1) <= kWindowBound;
  o.whatif_ok = std::abs(o.whatif_err) <= kBound;
  o.validate_ok = std::abs(o.validate_err) <= kBound;
  return o;
}

// The mode-specific figures of one run, for the log.
std::string details(const json& r) {
  std::ostringstream s;
  s << fmt("%.3f", num(r, "ms_per_step")) << " ms/step (GPU busiest stream " << fmt("%.3f", num(r, "gpu_ms_per_step"))
    << " ms/step = " << fmt("%.0f%%", 100 * num(r, "gpu_ms_per_step") / num(r, "ms_per_step")) << "; host spin "
    << fmt("%.3f", num(r, "host_ms_nominal")) << " ms; " << r.value("blocking_call", std::string("?")) << " "
    << fmt("%.3f", num(r, "blocking_ms_per_step")) << " ms/step; drain " << fmt("%.2f", num(r, "drain_ms")) << " ms";
  for (const char* k : {"launch_us_min", "launches_in_flight_at_end", "copy_ms_per_step", "compute_ms_per_step",
                        "copy_gb_per_s", "malloc_ms_per_step"})
    if (r.contains(k)) s << "; " << k << " " << fmt("%.3f", num(r, k));
  s << ")";
  return s.str();
}

void check_pair(const Pair& p) {
  skip_without_device();
  Outcome o;
  int attempts = 0;
  for (;;) {
    ++attempts;
    o = attempt(p, attempts);
    if (o.all() || attempts == kAttempts) break;
    std::printf("%s, attempt %d: measured %.3fx, whatif %.3fx (%+.1f%%), validate %+.1f%%, paced %d/%d, window %d; "
                "measuring again\n",
                p.mode.c_str(), attempts, o.measured_own, o.simulated, 100 * o.whatif_err, 100 * o.validate_err,
                o.paced_base, o.paced_changed, o.window_ok);
    std::fflush(stdout);
  }
  MESSAGE(p.mode << " (" << p.change << "): base " << details(o.base));
  MESSAGE(p.mode << " (" << p.change << "): changed " << details(o.changed));
  MESSAGE(p.mode << " | " << p.stage << "=" << p.factor << " | measured own " << fmt("%.3fx", o.measured_own)
                 << " | measured amdahl window " << fmt("%.3fx", o.measured_window) << " | whatif simulated "
                 << fmt("%.3fx", o.simulated) << " (" << fmt("%+.1f%%", 100 * o.whatif_err) << ") | classic "
                 << fmt("%.3fx", o.classic) << " (" << fmt("%+.1f%%", 100 * o.classic_err) << ") | validate simulated "
                 << fmt("%.3fx", o.validate_sim) << " (" << fmt("%+.1f%%", 100 * o.validate_err) << ") | attempts "
                 << attempts << " | " << o.dir);
  char row[512];
  std::snprintf(row, sizeof row,
                "| %s | %s | %.3f | %.3f | %.3fx | %.3fx | %.3fx | %+.1f%% | %.3fx | %+.1f%% | %.3fx | %+.1f%% | %d |\n",
                p.mode.c_str(), p.change.c_str(), num(o.base, "ms_per_step"), num(o.changed, "ms_per_step"),
                o.measured_own, o.measured_window, o.simulated, 100 * o.whatif_err, o.classic, 100 * o.classic_err,
                o.validate_sim, 100 * o.validate_err, attempts);
  std::printf("%s", row);
  std::fflush(stdout);
  if (const char* table = std::getenv("AMDAHL_IMPLICIT_TABLE"); table != nullptr && *table != '\0')
    std::ofstream(table, std::ios::app) << row;

  INFO(p.mode << " (attempt " << attempts << ", " << o.dir << ")\nwhatif: simulated_speedup " << o.simulated
              << ", naive_speedup " << o.classic << "\nvalidate: " << o.validate.dump(1) << "\nbase run: " << o.base.dump()
              << "\nchanged run: " << o.changed.dump());
  // The ground truth is what the mode says: the host does not outrun the GPU in either run (for
  // launch_queue: the launch queue filled during the warm-up; for alloc_sync: cudaFree did
  // synchronize), and amdahl's window times the program's timed steps.
  CHECK_MESSAGE(o.paced_base, "base run: the host ran ahead of the GPU (ms/step below the GPU's): not a steady state");
  CHECK_MESSAGE(o.paced_changed, "changed run: the host ran ahead of the GPU (ms/step below the GPU's)");
  CHECK_MESSAGE(o.window_ok, "amdahl's window ms/step (validate base/improved.ms_per_step: "
                                 << o.window_base << " / " << o.window_changed << ") differs from the program's own ("
                                 << num(o.base, "ms_per_step") << " / " << num(o.changed, "ms_per_step")
                                 << ") by more than 2%");
  // The model.
  CHECK(o.whatif_ok);   // |whatif simulated / measured - 1| <= 5%
  CHECK(o.validate_ok); // |validate simulated_error| <= 5%
}

}  // namespace

TEST_CASE("implicit wait: launch queue full (gpu_compute 4x faster, the host's launches then bind)") {
  check_pair({"launch_queue", "gpu_compute", 4.0, "kernels 20 -> 5 us", {"--gpu-scale", "1"}, {"--gpu-scale", "0.25"}});
}

TEST_CASE("implicit wait: event of step i-2 before refilling a pinned buffer (h2d 2x faster)") {
  check_pair({"pinned_event", "h2d", 2.0, "copy 256 -> 128 MiB", {"--h2d-scale", "1"}, {"--h2d-scale", "0.5"}});
}

TEST_CASE("implicit wait: cudaFree between kernels (gpu_compute 2x faster)") {
  check_pair({"alloc_sync", "gpu_compute", 2.0, "kernels 4+2 -> 2+1 ms", {"--gpu-scale", "1"}, {"--gpu-scale", "0.5"}});
}

TEST_CASE("implicit wait: pageable cudaMemcpyAsync between kernels (gpu_compute 2x faster)") {
  check_pair(
      {"pageable_copy", "gpu_compute", 2.0, "kernels 4+2 -> 2+1 ms", {"--gpu-scale", "1"}, {"--gpu-scale", "0.5"}});
}

TEST_CASE("implicit wait: pipelined loop with one cudaStreamSynchronize per step (gpu_compute 4x faster)") {
  check_pair({"pipelined_sync", "gpu_compute", 4.0, "kernel 8 -> 2 ms", {"--gpu-scale", "1"}, {"--gpu-scale", "0.25"}});
}
