// Issue 19 item 3, one consistent story in every output, end to end through the real `amdahl`
// binary on profiles written with format::save_profile:
// - the projection table gives the replay (what `amdahl whatif --speedup STAGE=K` computes)
//   beside classic Amdahl, labelled, in text, JSON, HTML and Markdown;
// - "factor for 1.25x overall" comes from the replay and says "not reachable by this stage
//   alone" where the replay limit is below it (a pipelined run where classic Amdahl says 1.3x);
// - the verdict does not say compute bound while the GPU is idle most of the window;
// - "what to do next" (next_actions): ranked, each with a command that gives its figure;
// - `report --whatif STAGE=K` gives what `whatif --speedup STAGE=K` gives.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "../analysis/profile_builder.hpp"
#include "../support/cli_support.hpp"
#include "amdahl/format/profile_store.hpp"

namespace fs = std::filesystem;
using amdahl::test::ProfileBuilder;
using amdahl::test::run_amdahl;

namespace {

void save(ProfileBuilder& b, const std::string& path) {
  b.profile.meta["format_version"] = std::to_string(amdahl::format::kProfileFormatVersion);
  b.profile.meta["command"] = "synthetic";
  amdahl::format::save_profile(b.profile, path, true);
}

// One loader thread (tid 2: disk_io 2 ms + cpu_preprocess `pre` ms per batch) feeding the
// driver (tid 1: wait for the batch, h2d 3 ms, gpu_compute 20 ms) through a queue of 2 batches,
// linked by produce/consume marks. With pre = 20 the loader (22 ms) is just faster than the
// driver (23 ms): gpu_compute holds ~87% of the step, yet removing it leaves the loader's
// 22 ms: the replay's limit is 23/22 = 1.05x while classic Amdahl says 1 / (1 - 0.87) = 7.7x.
ProfileBuilder pipelined(double pre, int steps = 30) {
  ProfileBuilder b;
  double loader = 0, driver = 0;
  std::vector<double> consumed(static_cast<std::size_t>(steps), 0);
  for (int n = 0; n < steps; ++n) {
    const double step_start = driver;
    double t = driver;
    b.stage(2, "disk_io", loader, loader + 2);
    loader += 2;
    b.stage(2, "cpu_preprocess", loader, loader + pre);
    loader += pre;
    double ready = loader;
    if (n >= 2 && consumed[static_cast<std::size_t>(n - 2)] > ready) {
      b.stage(2, "wait", ready, consumed[static_cast<std::size_t>(n - 2)]);
      ready = consumed[static_cast<std::size_t>(n - 2)];
    }
    b.mark(2, "produce", ready, n);
    loader = ready;
    if (ready > t) {
      b.stage(1, "wait", t, ready);
      t = ready;
    }
    b.mark(1, "consume", t, n);
    consumed[static_cast<std::size_t>(n)] = t;
    b.stage(1, "h2d", t, t + 3);
    t += 3;
    b.stage(1, "gpu_compute", t, t + 20);
    t += 20;
    b.stage(1, "step", step_start, t);
    driver = t;
  }
  return b;
}

// Steps of 100 ms: two host user stages of 30 ms each, then gpu_compute: a 40 ms kernel waited
// for with cudaDeviceSynchronize. GPU compute is the largest group (40%) but the GPU is idle
// 60% of the window.
ProfileBuilder mostly_idle_gpu(int steps = 12) {
  ProfileBuilder b;
  std::uint32_t corr = 1;
  for (int n = 0; n < steps; ++n) {
    const double t = 100.0 * n;
    b.stage(1, "step", t, t + 100);
    b.stage(1, "tokenize", t, t + 30);
    b.stage(1, "augment", t + 30, t + 60);
    b.stage(1, "gpu_compute", t + 60, t + 100);
    b.api(1, "cudaLaunchKernel", t + 60, t + 60.01, corr);
    b.gpu(amdahl::format::GpuOpKind::Kernel, t + 60.02, t + 99.99, corr, amdahl::format::CopyKind::Unknown, "k");
    ++corr;
    b.api(1, "cudaDeviceSynchronize", t + 60.01, t + 100, corr++);
  }
  return b;
}

// Serial: disk_io 50 ms + gpu_compute 50 ms on the driving thread (loading inline).
ProfileBuilder serial(int steps) {
  ProfileBuilder b;
  for (int k = 0; k < steps; ++k) {
    const double t = 100.0 * k;
    b.stage(1, "step", t, t + 100).stage(1, "disk_io", t, t + 50).stage(1, "gpu_compute", t + 50, t + 100);
  }
  return b;
}

struct Fixture {
  fs::path dir;
  std::string tied, idle, inline_io, short_run;
  Fixture() {
    if (!fs::exists(amdahl::test::amdahl_bin())) {
      std::fprintf(stderr, "SKIP: %s not built\n", amdahl::test::amdahl_bin().c_str());
      std::exit(77);
    }
    dir = fs::temp_directory_path() / ("amdahl_story_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    tied = (dir / "tied.amdahl").string();
    idle = (dir / "idle.amdahl").string();
    inline_io = (dir / "inline.amdahl").string();
    short_run = (dir / "short.amdahl").string();
    auto a = pipelined(20);
    save(a, tied);
    auto b = mostly_idle_gpu();
    save(b, idle);
    auto c = serial(11);
    save(c, inline_io);
    auto d = serial(4);
    save(d, short_run);
  }
  ~Fixture() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

nlohmann::json json_of(const std::string& args) {
  const auto r = run_amdahl(args);
  REQUIRE_MESSAGE(r.rc == 0, args << ": " << r.err);
  return nlohmann::json::parse(r.out);
}

const nlohmann::json& projection_of(const nlohmann::json& report, const std::string& stage) {
  for (const auto& s : report["projections"]["stages"])
    if (s["stage"] == stage) return s;
  FAIL("no projection row for " << stage);
  static const nlohmann::json none;
  return none;
}

double whatif_speedup(const std::string& profile, const std::string& speedup) {
  return json_of("whatif " + profile + " --speedup " + speedup + " --format json")["simulated_speedup"].get<double>();
}

}  // namespace

TEST_CASE_FIXTURE(Fixture, "report: the replay beside classic Amdahl, the same figures as whatif") {
  const auto j = json_of("report " + tied + " --format json");
  REQUIRE(j["projections"]["headline"] == "replay");
  CHECK(j["projections"]["classic_only_reason"].is_null());
  const auto& g = projection_of(j, "gpu_compute");
  // Classic Amdahl from the 87% share says 10x faster GPU compute gives ~4.6x ...
  CHECK(g["fraction"].get<double>() == doctest::Approx(20.0 / 23.0).epsilon(0.02));
  CHECK(g["classic"]["10x"].get<double>() > 4.0);
  // ... the replay says the loader's 22 ms take over: 23/22.
  CHECK(g["replay"]["10x"].get<double>() == doctest::Approx(23.0 / 22.0).epsilon(0.01));
  CHECK(g["replay"]["limit"].get<double>() == doctest::Approx(23.0 / 22.0).epsilon(0.01));
  // Every figure is what `amdahl whatif --speedup STAGE=K` gives: the replay its
  // simulated_speedup, classic its naive_speedup.
  for (const char* stage : {"gpu_compute", "h2d"})
    for (const auto& [key, k] : {std::pair{"2x", 2}, std::pair{"4x", 4}, std::pair{"10x", 10}}) {
      const auto w = json_of("whatif " + tied + " --speedup " + stage + "=" + std::to_string(k) + " --format json");
      CHECK(projection_of(j, stage)["replay"][key].get<double>() ==
            doctest::Approx(w["simulated_speedup"].get<double>()).epsilon(1e-9));
      CHECK(projection_of(j, stage)["classic"][key].get<double>() ==
            doctest::Approx(w["naive_speedup"].get<double>()).epsilon(1e-9));
    }
  // The text labels both and keeps the old JSON (`stages[].amdahl`, classic).
  const auto t = run_amdahl("report " + tied);
  REQUIRE(t.rc == 0);
  CHECK(t.out.find("classic Amdahl: 1 / ((1 - p) + p / k)") != std::string::npos);
  CHECK(t.out.find("assumes the stages add up serially") != std::string::npos);
  CHECK(t.out.find("replay 2x") != std::string::npos);
  for (const auto& s : j["stages"])
    if (s["name"] == "gpu_compute") CHECK(s["amdahl"]["10x"].get<double>() == g["classic"]["10x"].get<double>());
}

TEST_CASE_FIXTURE(Fixture, "factor for 1.25x overall comes from the replay: not reachable where its limit is below") {
  const auto j = json_of("report " + tied + " --format json");
  const auto& g = projection_of(j, "gpu_compute");
  CHECK(g["target_basis"] == "replay");
  CHECK(g["target_outcome"] == "not_reachable");
  CHECK(g["factor_for_target"].is_null());
  CHECK(g["target_text"].get<std::string>().find("not reachable by this stage alone (replay limit 1.05x)") == 0);
  // Every output says so; none shows the classic factor (~1.3x) that contradicts the limit.
  const auto html = run_amdahl("report " + tied + " --format html");
  const auto md = run_amdahl("report " + tied + " --format markdown");
  const auto text = run_amdahl("report " + tied);
  for (const auto* out : {&html, &md, &text}) {
    REQUIRE(out->rc == 0);
    CHECK(out->out.find("not reachable by this stage alone (replay limit 1.05x)") != std::string::npos);
  }
  CHECK(html.out.find("factor for 1.25x overall (replay)") != std::string::npos);
  CHECK(html.out.find("classic Amdahl") != std::string::npos);
  // Where it is reachable, the factor reaches the target by replay, and a slightly smaller one
  // does not (serial run: 50% disk_io needs 0.5 / (0.8 - 0.5) = 1.67x).
  const auto s = json_of("report " + inline_io + " --format json");
  const auto& d = projection_of(s, "disk_io");
  REQUIRE(d["target_outcome"] == "reached");
  const double k = d["factor_for_target"].get<double>();
  CHECK(k == doctest::Approx(5.0 / 3.0).epsilon(0.006));
  CHECK(whatif_speedup(inline_io, "disk_io=" + std::to_string(k)) >= 1.25 - 1e-9);
  CHECK(whatif_speedup(inline_io, "disk_io=" + std::to_string(k / 1.01)) < 1.25);
}

TEST_CASE_FIXTURE(Fixture, "verdict: not compute bound while the GPU is idle most of the window") {
  const auto j = json_of("report " + idle + " --format json");
  CHECK(j["gpu"]["idle_share"].get<double>() == doctest::Approx(0.6).epsilon(0.01));
  const std::string v = j["verdict"];
  INFO(v);
  CHECK(v.rfind("host bound: the GPU is idle 60% of the window", 0) == 0);
  CHECK(v.find("the largest host share is tokenize (30% of each step)") != std::string::npos);
  CHECK(v.find("GPU compute holds 40% of each step") != std::string::npos);
  // The same profile with the GPU busy most of the window stays compute bound (the guard bites
  // only on the contradiction): gpu_compute 70 ms of a 100 ms step.
  ProfileBuilder b;
  std::uint32_t corr = 1;
  for (int n = 0; n < 12; ++n) {
    const double t = 100.0 * n;
    b.stage(1, "step", t, t + 100).stage(1, "tokenize", t, t + 30).stage(1, "gpu_compute", t + 30, t + 100);
    b.api(1, "cudaLaunchKernel", t + 30, t + 30.01, corr);
    b.gpu(amdahl::format::GpuOpKind::Kernel, t + 30.02, t + 99.99, corr, amdahl::format::CopyKind::Unknown, "k");
    ++corr;
    b.api(1, "cudaDeviceSynchronize", t + 30.01, t + 100, corr++);
  }
  const std::string busy = (dir / "busy.amdahl").string();
  save(b, busy);
  CHECK(json_of("report " + busy + " --format json")["verdict"].get<std::string>().rfind("compute bound", 0) == 0);
  // The imported H200 trace (GPU idle 78%): its verdict does not say compute bound either.
  const std::string h200 = (dir / "h200.amdahl").string();
  REQUIRE(run_amdahl("import " + amdahl::test::source_dir() + "/tests/data/kineto_h200_resnet.json.gz -o " + h200).rc == 0);
  const auto k = json_of("report " + h200 + " --format json");
  CHECK(k["gpu"]["idle_share"].get<double>() > 0.5);
  CHECK(k["verdict"].get<std::string>().rfind("compute bound", 0) != 0);
  // Its gpu_compute is mostly host time: 2x faster kernels give ~1x by replay, and classic
  // Amdahl, from the GPU part's share (what the factor scales), agrees with whatif's.
  const auto& g = projection_of(k, "gpu_compute");
  const auto w = json_of("whatif " + h200 + " --speedup gpu_compute=2 --format json");
  CHECK(g["classic"]["2x"].get<double>() == doctest::Approx(w["naive_speedup"].get<double>()).epsilon(1e-9));
  CHECK(g["replay"]["2x"].get<double>() == doctest::Approx(w["simulated_speedup"].get<double>()).epsilon(1e-9));
  CHECK(g["classic_share"].get<double>() < 0.5 * g["fraction"].get<double>());
}

TEST_CASE_FIXTURE(Fixture, "what to do next: ranked actions whose commands give their figures") {
  // Loading inline on the driving thread: more loader workers, checked with whatif --workers.
  const auto j = json_of("report " + inline_io + " --format json");
  const auto& a = j["next_actions"];
  REQUIRE(a.size() >= 1);
  REQUIRE(a.size() <= 3);
  CHECK(a[0]["rank"] == 1);
  CHECK(a[0]["kind"] == "input");
  CHECK(a[0]["basis"] == "replay");
  const std::string cmd = a[0]["command"];
  REQUIRE(cmd.rfind("amdahl whatif " + inline_io + " --workers 4", 0) == 0);
  const auto w = json_of(cmd.substr(std::string("amdahl ").size()) + " --format json");
  CHECK(a[0]["speedup"].get<double>() == doctest::Approx(w["simulated_speedup"].get<double>()).epsilon(1e-9));
  CHECK(a[0]["speedup"].get<double>() > 1.5);
  for (std::size_t i = 1; i < a.size(); ++i)
    if (!a[i]["speedup"].is_null()) CHECK(a[i]["speedup"].get<double>() <= a[i - 1]["speedup"].get<double>() + 1e-12);
  // The pipelined run: GPU compute first, with the replay's figure (not classic's 1.77x).
  const auto p = json_of("report " + tied + " --format json");
  REQUIRE(p["next_actions"].size() >= 1);
  CHECK(p["next_actions"][0]["kind"] == "compute");
  CHECK(p["next_actions"][0]["speedup"].get<double>() == doctest::Approx(whatif_speedup(tied, "gpu_compute=2")));
  // A window of 3 steps: profile more first.
  const auto s = json_of("report " + short_run + " --format json");
  CHECK(s["next_actions"][0]["kind"] == "window");
  // Text, HTML and Markdown have the section with the commands.
  const auto text = run_amdahl("report " + inline_io);
  CHECK(text.out.find("what to do next:\n  1. input (disk_io) holds 50% of the step time") != std::string::npos);
  CHECK(text.out.find("check: amdahl whatif " + inline_io + " --workers 4") != std::string::npos);
  const auto html = run_amdahl("report " + inline_io + " --format html");
  CHECK(html.out.find("<h2>What to do next</h2><ol class=\"next\"><li>input (disk_io)") != std::string::npos);
  const auto md = run_amdahl("report " + inline_io + " --format markdown");
  CHECK(md.out.find("### What to do next\n\n1. input (disk\\_io)") != std::string::npos);
}

TEST_CASE_FIXTURE(Fixture, "report --whatif STAGE=K: the user's what-if in the report") {
  const auto j = json_of("report " + tied + " --whatif gpu_compute=2 --whatif h2d=2 --format json");
  const auto& u = j["user_whatif"];
  CHECK(u["change"] == "gpu_compute 2x and h2d 2x");
  const auto w = json_of("whatif " + tied + " --speedup gpu_compute=2 --speedup h2d=2 --format json");
  CHECK(u["replay_speedup"].get<double>() == doctest::Approx(w["simulated_speedup"].get<double>()).epsilon(1e-12));
  CHECK(u["classic_speedup"].get<double>() == doctest::Approx(w["naive_speedup"].get<double>()).epsilon(1e-12));
  CHECK(u["replayed"] == true);
  CHECK(json_of("report " + tied + " --format json")["user_whatif"].is_null());
  const auto t = run_amdahl("report " + tied + " --whatif gpu_compute=2");
  CHECK(t.out.find("what-if (--whatif gpu_compute 2x): ") != std::string::npos);
  const auto md = run_amdahl("report " + tied + " --whatif gpu_compute=2 --format markdown");
  CHECK(md.out.find("### What-if") != std::string::npos);
  const auto html = run_amdahl("report " + tied + " --whatif gpu_compute=2 --format html");
  CHECK(html.out.find("Requested what-if") != std::string::npos);
  CHECK(run_amdahl("report " + tied + " --whatif gpu_compute").rc == 1);
  CHECK(run_amdahl("report " + tied + " --whatif nosuch=2").rc == 2);
}
