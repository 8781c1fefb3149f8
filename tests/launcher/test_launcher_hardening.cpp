// Issue 18, hardening: what a hostile or unlucky user could still break in `amdahl profile`.
// Each test case is the reproducer of one failure, kept as its regression test.
#include <signal.h>

#include <chrono>
#include <thread>

#include "amdahl/format/profile_store.hpp"
#include "launcher_test_util.hpp"

using namespace launcher_test;
using amdahl::format::load_profile;

namespace {

std::string static_target() { return (build_dir() / "tests" / "launcher_target_static").string(); }

bool has_diagnostic(const amdahl::format::Profile& p, const std::string& key) {
  for (const auto& d : p.records.diagnostics)
    if (p.records.str(d.key) == key) return true;
  return false;
}

}  // namespace

// Class 1, crashes: NVTX_INJECTION64_PATH made a statically linked program dlopen the collector
// with the static C library's loader (a second libc, no TLS for the library): its first range
// died of SIGSEGV (139) under `amdahl profile` while it exited 5 alone. The collector now
// refuses to run in a static process and says so in one line; the program is unchanged.
TEST_CASE("a statically linked NVTX program exits as it does alone; the collector says it stays off") {
  if (!fs::exists(static_target())) {
    MESSAGE("launcher_target_static not built (no static C library, or a sanitizer build): skipped");
    return;
  }
  TempDir t;
  const Ran alone = run({static_target(), "ranges"}, t.dir.string());
  REQUIRE(alone.code == 5);

  const std::string out = t.file("static.amdahl");
  const Ran r = run({amdahl_bin(), "profile", "-o", out, "--", static_target(), "ranges"}, t.dir.string());
  CHECK(r.code == 5);
  if (fs::exists(build_dir() / "lib" / "libamdahl_collector.so")) {
    CHECK(r.err.find("is statically linked: the collector cannot run inside it") != std::string::npos);
    const auto p = load_profile(out);
    CHECK(has_diagnostic(p, "launcher.static_command"));
    CHECK_FALSE(has_diagnostic(p, "launcher.missing_part"));
    CHECK(p.records.ranges.empty());

    // The collector's own check, without the launcher: injected by hand, recording on.
    const std::string parts = t.file("parts");
    fs::create_directory(parts);
    const Ran injected = run({static_target(), "ranges"}, t.dir.string(),
                             {{"NVTX_INJECTION64_PATH", (build_dir() / "lib" / "libamdahl_collector.so").string()},
                              {"AMDAHL_PART_DIR", parts}});
    CHECK(injected.code == 5);
    CHECK(injected.err.find("statically linked") != std::string::npos);
  }
  // A dynamically linked program is still profiled (the refusal is for static hosts only).
  const std::string dyn = t.file("dynamic.amdahl");
  REQUIRE(run({amdahl_bin(), "profile", "-o", dyn, "--", target(), "ranges"}, t.dir.string()).code == 5);
  if (fs::exists(build_dir() / "lib" / "libamdahl_collector.so")) CHECK(!load_profile(dyn).records.ranges.empty());
}
