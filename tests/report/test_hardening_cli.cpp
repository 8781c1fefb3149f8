// Issue 18, hardening, through the built binary: outputs (an output that is an input, -o DIR,
// a full disk, /dev/stdout and FIFOs). Each test case is the reproducer of one failure, kept as its
// regression test.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "amdahl/format/profile_store.hpp"
#include "cli_support.hpp"
#include "report_fixture.hpp"

namespace fs = std::filesystem;
using namespace amdahl;
using test::run_amdahl;
using test::shell;
using test::slurp;

namespace {

struct Dir {
  fs::path dir;
  std::string run, faster, kineto;
  Dir() {
    if (!fs::exists(test::amdahl_bin())) {
      std::fprintf(stderr, "SKIP: %s not built\n", test::amdahl_bin().c_str());
      std::exit(77);
    }
    std::string tmpl = (fs::temp_directory_path() / "amdahl_hardening_XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    dir = tmpl;
    run = p("run.amdahl");
    faster = p("faster.amdahl");
    kineto = test::source_dir() + "/tests/data/kineto_small.json";
    format::save_profile(test::report_fixture(3, 4), run, true);
    format::save_profile(test::report_fixture(1, 4), faster, true);
  }
  ~Dir() { fs::remove_all(dir); }
  std::string p(const std::string& name) const { return (dir / name).string(); }
  std::size_t entries() const {
    std::size_t n = 0;
    for (auto it = fs::directory_iterator(dir); it != fs::directory_iterator(); ++it) ++n;
    return n;
  }
};

bool one_error_line(const test::CmdResult& r) {
  return r.err.rfind("amdahl: error: ", 0) == 0 && r.err.find('\n') == r.err.size() - 1;
}

}  // namespace

// ---- class 4: outputs ------------------------------------------------------------------------

// `report X -o X` and `export X --chrome X` destroyed the input profile with exit 0. Any output
// naming an input (the same file by st_dev/st_ino: the path, a hard link, a symbolic link) is
// refused before anything is read or written.
TEST_CASE("an output that is one of the inputs is refused; the input is untouched") {
  Dir d;
  const std::string before = slurp(d.run);
  fs::create_hard_link(d.run, d.p("hard.amdahl"));
  fs::create_symlink(d.run, d.p("soft.amdahl"));
  { std::ofstream(d.p("rules.txt")) << "disk_io -> disk_io\n"; }
  const std::string kineto_copy = d.p("k.json");
  fs::copy_file(d.kineto, kineto_copy);
  const std::vector<std::string> cmds = {
      "report " + d.run + " -o " + d.run,
      "report " + d.run + " -o " + d.p("hard.amdahl"),
      "report " + d.run + " -o " + d.p("soft.amdahl") + " --format json",
      "report " + d.run + " --stages " + d.p("rules.txt") + " -o " + d.p("rules.txt"),
      "whatif " + d.run + " --speedup disk_io=2 -o " + d.run,
      "diff " + d.run + " " + d.faster + " -o " + d.faster,
      "validate " + d.run + " " + d.faster + " -o " + d.faster,
      "export " + d.run + " --chrome " + d.run,
      "export " + d.run + " --chrome " + d.p("soft.amdahl"),
      "import " + kineto_copy + " -o " + kineto_copy + " --force",
      "profile --force --stages " + d.p("rules.txt") + " -o " + d.p("rules.txt") + " -- /bin/true",
  };
  for (const std::string& c : cmds) {
    const auto r = run_amdahl(c);
    CAPTURE(c);
    CHECK(r.rc == 1);
    CHECK(one_error_line(r));
    CHECK(r.err.find("refusing to write") != std::string::npos);
  }
  CHECK(slurp(d.run) == before);
  CHECK(slurp(d.p("rules.txt")) == "disk_io -> disk_io\n");
  CHECK(slurp(kineto_copy) == slurp(d.kineto));
  CHECK(run_amdahl("report " + d.run).rc == 0);
}

// `-o DIR` said "already exists; use --force" (profile) or failed obscurely. Now every command
// names the problem.
TEST_CASE("-o DIR: 'it is a directory', before any work") {
  Dir d;
  fs::create_directory(d.p("out"));
  const std::string out = d.p("out");
  for (const std::string& c : {"report " + d.run + " -o " + out, "whatif " + d.run + " --speedup disk_io=2 -o " + out,
                               "export " + d.run + " --chrome " + out, "import " + d.kineto + " -o " + out,
                               "profile -o " + out + " -- /bin/true", "profile --force -o " + out + " -- /bin/true"}) {
    const auto r = run_amdahl(c);
    CAPTURE(c);
    CHECK(r.rc == 1);
    CHECK(one_error_line(r));
    CHECK(r.err.find("is a directory") != std::string::npos);
  }
  CHECK(fs::is_empty(out));
}

// A full disk during `report -o` replaced a good report with a truncated one. Outputs are
// written to a temporary and renamed: the old file stays whole, one error line, exit 2, no
// temporary left. (A file size limit is the full disk here; SIGXFSZ must not kill amdahl.)
TEST_CASE("a failed write leaves the previous output as it was") {
  Dir d;
  const std::string out = d.p("report.txt");
  REQUIRE(run_amdahl("report " + d.run + " -o " + out).rc == 0);
  const std::string good = slurp(out);
  REQUIRE(good.size() > 1024);  // `ulimit -f 2`: 1 KiB in sh (512-byte blocks), 2 KiB in bash
  const std::size_t files = d.entries();
  for (const std::string& c : {"report " + d.run + " --format json -o " + out, "export " + d.run + " --chrome " + out}) {
    CAPTURE(c);
    const auto r = shell("ulimit -f 2; " + test::amdahl_bin() + " " + c);
    CHECK(r.rc == 2);
    CHECK(one_error_line(r));
    CHECK(slurp(out) == good);
    CHECK(d.entries() == files);  // no temporary left behind
  }
  // A device that is full: written in place, the error said in one line.
  const auto full = run_amdahl("report " + d.run + " -o /dev/full");
  CHECK(full.rc == 2);
  CHECK(one_error_line(full));
  CHECK(full.err.find("No space left on device") != std::string::npos);
}

// `--chrome /dev/stdout` replaced the device link with a file. Devices, FIFOs and the
// descriptor aliases are written in place; /dev/stdout to a redirected file appends to it.
TEST_CASE("/dev/stdout, a FIFO and devices are written in place, never replaced") {
  Dir d;
  REQUIRE(fs::is_symlink("/dev/stdout"));
  auto r = run_amdahl("export " + d.run + " --chrome /dev/stdout");  // stdout: a pipe
  CHECK(r.rc == 0);
  CHECK(nlohmann::json::parse(r.out)["traceEvents"].size() > 10);
  CHECK(fs::is_symlink("/dev/stdout"));
  r = shell(test::amdahl_bin() + " report " + d.run + " -o /dev/stdout > " + d.p("redirected.txt"));
  CHECK(r.rc == 0);
  CHECK(slurp(d.p("redirected.txt")).find("verdict:") != std::string::npos);
  CHECK(fs::is_symlink("/dev/stdout"));
  CHECK(run_amdahl("report " + d.run + " -o /dev/null").rc == 0);
  CHECK(fs::is_character_file("/dev/null"));
  // A FIFO: the reader gets the report, the FIFO stays a FIFO.
  const std::string fifo = d.p("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  r = shell("cat " + fifo + " > " + d.p("from_fifo.txt") + " & " + test::amdahl_bin() + " report " + d.run +
            " --format csv -o " + fifo + "; wait");
  CHECK(r.rc == 0);
  CHECK(slurp(d.p("from_fifo.txt")).rfind("step,start_ns", 0) == 0);
  CHECK(fs::is_fifo(fifo));
  // A profile needs a regular file: refused before the command runs.
  r = run_amdahl("profile -o /dev/stdout -- /bin/true");
  CHECK(r.rc == 1);
  CHECK(r.err.find("not a regular file") != std::string::npos);
  r = run_amdahl("import " + d.kineto + " -o " + fifo);
  CHECK(r.rc == 1);
  CHECK(fs::is_fifo(fifo));
}

