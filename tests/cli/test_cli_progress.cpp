// The progress line through the real binary: on a terminal (a pseudo-terminal from util-linux
// `script`) long work shows "amdahl: <phase>..." and erases it; with stderr not a terminal, or
// with --quiet, stderr stays clean. AMDAHL_PROGRESS_DELAY_MS=0 makes the small test profiles
// count as long work.
#include <doctest/doctest.h>

#include <cstdlib>

#include "cli_fixture.hpp"

using namespace amdahl;

namespace {

const char* kNow = "AMDAHL_PROGRESS_DELAY_MS=0 ";

}  // namespace

TEST_CASE("stderr not a terminal: no progress line, whatever the delay") {
  test::CliDir d("amdahl_cli_progress_pipe");
  for (const std::string& c : {"report " + d.run, "whatif " + d.run + " --speedup disk_io=2",
                               "export " + d.run + " --chrome " + d.p("t.json")}) {
    CAPTURE(c);
    const auto r = test::shell(std::string(kNow) + test::amdahl_bin() + " " + c);
    CHECK(r.rc == 0);
    CHECK(r.err.find('\r') == std::string::npos);
    CHECK(r.err.find("\x1b[") == std::string::npos);
    CHECK(r.err.find("analysing") == std::string::npos);
    CHECK(r.err.find("writing trace") == std::string::npos);
  }
}

TEST_CASE("on a terminal: the line is drawn and erased; --quiet turns it off") {
  if (std::system("script --version >/dev/null 2>&1") != 0) {
    MESSAGE("SKIPPED: util-linux `script` is not installed (no pseudo-terminal for this check)");
    return;
  }
  test::CliDir d("amdahl_cli_progress_tty");
  const auto on_tty = [&](const std::string& args) {
    // stdout to a file, stderr the pseudo-terminal that `script` records.
    return test::shell("TERM=xterm script -qec \"" + std::string(kNow) + test::amdahl_bin() + " " + args + " >" +
                       d.p("stdout.txt") + "\" /dev/null");
  };
  auto r = on_tty("report " + d.run);
  CAPTURE(r.out);
  CHECK(r.rc == 0);
  CHECK(r.out.find("amdahl: analysing\u2026") != std::string::npos);
  CHECK(r.out.find("\r\x1b[K") != std::string::npos);  // erased
  CHECK(test::slurp(d.p("stdout.txt")).rfind("window: ", 0) == 0);  // the report itself is clean
  r = on_tty("export " + d.run + " --chrome " + d.p("t.json"));
  CHECK(r.out.find("amdahl: writing trace\u2026") != std::string::npos);
  r = on_tty("report " + d.run + " --quiet");
  CHECK(r.rc == 0);
  CHECK(r.out.find("analysing") == std::string::npos);
  r = on_tty("-q report " + d.run);
  CHECK(r.out.find("analysing") == std::string::npos);
}
