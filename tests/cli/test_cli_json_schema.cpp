// Every JSON document the CLI prints starts with "schema_version": 1 (docs/json-schema.md):
// report (full and GPU-only), whatif, validate, diff and stages, on stdout and through -o.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "cli_fixture.hpp"

using namespace amdahl;

namespace {

// The document parses, and its text begins with the schema version, before any other key.
void check_schema_first(const std::string& text) {
  CAPTURE(text.substr(0, 200));
  CHECK(text.rfind("{\n  \"schema_version\": 1,\n", 0) == 0);
  const auto j = nlohmann::json::parse(text);
  CHECK(j["schema_version"] == 1);
}

}  // namespace

TEST_CASE("schema_version is the first key of every JSON output") {
  test::CliDir d("amdahl_cli_schema");
  const std::string both = d.run + " " + d.faster;
  for (const std::string& c : {"report " + d.run + " --format json", "whatif " + d.run + " --speedup disk_io=2 --format json",
                               "validate " + both + " --format json", "diff " + both + " --format json",
                               "stages " + d.run + " --format json"}) {
    CAPTURE(c);
    const auto r = test::run_amdahl(c);
    REQUIRE(r.rc == 0);
    check_schema_first(r.out);
  }
  // The keys the documents always had are still there (additive change).
  const auto report = nlohmann::json::parse(test::run_amdahl("report " + d.run + " --format json").out);
  CHECK(report.contains("wall_ns"));
  CHECK(report.contains("stages"));
  REQUIRE(test::run_amdahl("report " + d.run + " -o " + d.p("r.json")).rc == 0);
  check_schema_first(test::slurp(d.p("r.json")));
}

TEST_CASE("the GPU-only report's JSON has schema_version too") {
  test::CliDir d("amdahl_cli_schema_gpu");
  test::ProfileBuilder b;
  b.api(1, "cudaLaunchKernel", 0, 0.01, 1);
  b.gpu(format::GpuOpKind::Kernel, 0.05, 2, 1, format::CopyKind::Unknown, "k");
  format::save_profile(b.profile, d.p("gpu.amdahl"), true);
  const auto r = test::run_amdahl("report " + d.p("gpu.amdahl") + " --format json");
  REQUIRE(r.rc == 0);
  check_schema_first(r.out);
  CHECK(nlohmann::json::parse(r.out)["report_kind"] == "gpu_only");
}
