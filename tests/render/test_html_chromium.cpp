// The HTML report in headless Chromium: it renders (a screenshot is kept under
// <build>/test-artifacts/), and logs no console error. A page that does log one is caught, so
// the check can fail. Skipped (exit 77) when no chromium is installed
// (scripts/setup_test_extras.sh installs Debian's `chromium`).
#include <doctest/doctest.h>

#include <filesystem>

#include "amdahl/format/profile_store.hpp"
#include "../support/cli_support.hpp"
#include "../support/report_fixture.hpp"

namespace fs = std::filesystem;
using namespace amdahl;

namespace {

std::string find_chromium() {
  for (const char* c : {"chromium", "chromium-browser", "google-chrome"}) {
    const auto r = test::shell(std::string("command -v ") + c);
    if (r.rc == 0 && !r.out.empty()) return r.out.substr(0, r.out.find('\n'));
  }
  return {};
}

// Console messages, uncaught exceptions and CSP violations as Chromium logs them on stderr.
bool has_console_error(const std::string& log) {
  for (const char* k : {"CONSOLE(", ":CONSOLE", "Uncaught", "Refused to", "console.error"})
    if (log.find(k) != std::string::npos) return true;
  return false;
}

test::CmdResult render(const std::string& chromium, const std::string& html, const std::string& png) {
  return test::shell("timeout 120 " + chromium +
                     " --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run"
                     " --enable-logging=stderr --v=0 --window-size=1000,2900 --screenshot=" + png + " file://" + html);
}

}  // namespace

TEST_CASE("HTML report renders in headless Chromium without console errors") {
  const std::string chromium = find_chromium();
  if (chromium.empty()) {
    std::fprintf(stderr, "SKIP: no chromium found (scripts/setup_test_extras.sh installs it)\n");
    std::exit(77);
  }
  if (!fs::exists(test::amdahl_bin())) {
    std::fprintf(stderr, "SKIP: %s not built\n", test::amdahl_bin().c_str());
    std::exit(77);
  }
  const fs::path art = fs::path(test::build_dir()) / "test-artifacts";
  fs::create_directories(art);
  const std::string run = (art / "report_fixture.amdahl").string();
  format::save_profile(test::report_fixture(), run, true);
  const std::string kineto = (art / "kineto_small.amdahl").string();
  REQUIRE(test::run_amdahl("import " + test::source_dir() + "/tests/data/kineto_small.json -o " + kineto + " -f").rc == 0);

  for (const std::string& profile : {run, kineto}) {
    const std::string stem = fs::path(profile).stem().string();
    const std::string html = (art / (stem + ".html")).string(), png = (art / (stem + ".png")).string();
    REQUIRE(test::run_amdahl("report " + profile + " --force --format html -o " + html).rc == 0);
    fs::remove(png);
    const auto r = render(chromium, html, png);
    INFO(r.err);
    CHECK(r.rc == 0);
    REQUIRE(fs::exists(png));
    CHECK(fs::file_size(png) > 20000);
    CHECK(!has_console_error(r.err));
    // The DOM as Chromium parsed it: the charts are there, the markup name is text.
    const auto dom = test::shell("timeout 120 " + chromium + " --headless --no-sandbox --disable-gpu --dump-dom file://" + html);
    CHECK(dom.rc == 0);
    CHECK(dom.out.find("<svg") != std::string::npos);
    CHECK(dom.out.find("<script") == std::string::npos);
  }

  // The check can fail: a page that logs a console error is caught.
  const std::string bad = (art / "console_error_probe.html").string();
  std::ofstream(bad) << "<!DOCTYPE html><html><body><script>console.error('probe error');</script></body></html>";
  const auto r = render(chromium, bad, (art / "console_error_probe.png").string());
  CHECK(has_console_error(r.err));
  fs::remove(bad);
  fs::remove(art / "console_error_probe.png");
}
