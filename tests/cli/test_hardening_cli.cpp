// Issue 18, hardening, through the built binary: outputs (an output that is an input, -o DIR,
// a full disk, /dev/stdout and FIFOs) and terminal escapes (names from a profile in every text
// output and error line). Each test case is the reproducer of one failure, kept as its
// regression test.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "amdahl/format/profile_store.hpp"
#include "../support/cli_support.hpp"
#include "../support/report_fixture.hpp"

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
  for (const std::string& c :
       {"report " + d.run + " --format json --force -o " + out, "export " + d.run + " --force --chrome " + out}) {
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

// ---- class 5: terminal escapes ---------------------------------------------------------------

namespace {

// Names a shared profile could carry: clear the screen, retitle the window, forge a line with
// CR/LF, an 8-bit CSI, a UTF-8 C1 CSI, DEL, a bidi override.
const std::string kClear = "clear\x1b[2J\x1b[H";
const std::string kTitle = "title\x1b]0;pwned\x07";
const std::string kForge = "forge\r\namdahl: verdict: all good";
const std::string kC1 = "c1\xC2\x9B" "31m\x9b" "1m\x7f\xE2\x80\xAE";

format::Profile hostile_profile() {
  test::ProfileBuilder b;
  double t = 0;
  for (int i = 0; i < 5; ++i) {
    b.stage(1, "step", t, t + 10);
    b.stage(1, kClear, t, t + 2);
    b.stage(1, kTitle, t + 2, t + 4);
    b.stage(1, kForge, t + 4, t + 6);
    b.stage(1, kC1, t + 6, t + 8);
    t += 10;
  }
  format::ThreadRec tr;
  tr.pid = 1;
  tr.tid = 1;
  tr.name = b.s("main\x1b[31m");
  b.profile.records.threads.push_back(tr);
  format::DiagRec dg;
  dg.pid = 1;
  dg.key = b.s("bad\x1b[2Jkey");
  dg.count = 1;
  dg.detail = b.s("detail\rforged");
  b.profile.records.diagnostics.push_back(dg);
  b.profile.meta["command"] = "python \x1b]0;x\x07";
  return b.profile;
}

// No byte a terminal acts on: C0 but tab and newline, DEL, a raw C1 byte, a UTF-8 C1 character
// (C2 80-9F), a bidi override (E2 80 AA-AE, E2 81 A6-A9).
std::string terminal_unsafe(const std::string& s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    const auto next = i + 1 < s.size() ? static_cast<unsigned char>(s[i + 1]) : 0;
    const auto third = i + 2 < s.size() ? static_cast<unsigned char>(s[i + 2]) : 0;
    if (c == '\r' && next == '\n') continue;  // a CSV record's own line end (RFC 4180)
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) return "control byte " + std::to_string(c) + " at " + std::to_string(i);
    if (c == 0xC2 && next >= 0x80 && next <= 0x9F) return "UTF-8 C1 at " + std::to_string(i);
    if (c == 0xE2 && ((next == 0x80 && third >= 0xAA && third <= 0xAE) || (next == 0x81 && third >= 0xA6 && third <= 0xA9)))
      return "bidi control at " + std::to_string(i);
    if (c >= 0x80 && c <= 0x9F) {  // a continuation byte is fine only inside a UTF-8 sequence
      const auto prev = i > 0 ? static_cast<unsigned char>(s[i - 1]) : 0;
      if (prev < 0xC0 && !(prev >= 0x80 && prev <= 0xBF)) return "raw C1 byte at " + std::to_string(i);
    }
  }
  return "";
}

}  // namespace

// Names from a profile reached the terminal raw in text output and error lines: a shared
// profile could clear the screen, retitle the window, forge lines with CR/LF. Every output for
// people, and every line on stderr, now shows them escaped (\x1b, \x0d, \u009b, ...); JSON
// and CSV too.
TEST_CASE("names from a profile never reach the terminal raw") {
  Dir d;
  const std::string evil = d.p("evil.amdahl");
  format::save_profile(hostile_profile(), evil, true);
  const std::string evil2 = d.p("evil2.amdahl");
  format::save_profile(hostile_profile(), evil2, true);
  for (const std::string& c :
       {"report " + evil, "report " + evil + " --format json", "report " + evil + " --format csv",
        "report " + evil + " --format markdown", "whatif " + evil + " --target 2x", "whatif " + evil + " --speedup clear=2",
        "whatif " + evil + " --format json --target 2x", "diff " + evil + " " + evil2, "diff " + evil + " " + evil2 + " --format json",
        "validate " + evil + " " + evil2, "export " + evil + " --chrome /dev/stdout"}) {
    const auto r = run_amdahl(c);
    CAPTURE(c);
    CHECK(terminal_unsafe(r.out) == "");
    CHECK(terminal_unsafe(r.err) == "");
  }
  // The escaped names are there, each on its own line (no forged line), and can be named back.
  const auto text = run_amdahl("report " + evil);
  CHECK(text.rc == 0);
  CHECK(text.out.find("clear\\x1b[2J\\x1b[H") != std::string::npos);
  CHECK(text.out.find("title\\x1b]0;pwned\\x07") != std::string::npos);
  CHECK(text.out.find("forge\\x0d\\x0aamdahl: verdict: all good") != std::string::npos);
  CHECK(text.out.find("c1\\u009b31m\\x9b1m\\x7f\\u202e") != std::string::npos);
  CHECK(text.out.find("\namdahl: verdict") == std::string::npos);
  CHECK(text.out.find("bad\\x1b[2Jkey") != std::string::npos);
  const auto json = run_amdahl("report " + evil + " --format json");
  CHECK(json.out.find("\"name\": \"clear\\\\x1b[2J\\\\x1b[H\"") != std::string::npos);  // JSON of clear\x1b[2J\x1b[H
  const auto named = shell(test::amdahl_bin() + " whatif " + evil + " --speedup 'clear\\x1b[2J\\x1b[H=2'");
  CHECK(named.rc == 0);

  // Error lines: a saved stage rule, a stage on the command line, a command name.
  format::Profile bad_rules = hostile_profile();
  bad_rules.meta["stage_rules"] = "no arrow \x1b[2J here\n";
  format::save_profile(bad_rules, d.p("bad_rules.amdahl"), true);
  for (const std::string& c : {"report " + d.p("bad_rules.amdahl"), "whatif " + evil + " --speedup $'nope\\x1b[2J=2'",
                               "profile -o " + d.p("x.amdahl") + " -- $'no\\x1b]0;cmd\\x07such'"}) {
    const auto r = shell("bash -c \"" + test::amdahl_bin() + " " + c + "\"");
    CAPTURE(c);
    CHECK(r.rc != 0);
    CHECK(terminal_unsafe(r.err) == "");
    CHECK(r.err.find("\\x1b") != std::string::npos);
  }
}

// ---- class 12: the command's environment ----------------------------------------------------

// What `amdahl profile --multicast-off` set in the command's environment (meta command_env) is
// one line of the text report, and in the JSON's profile; nothing when it set nothing.
TEST_CASE("the report shows the environment amdahl profile set for the command, in one line") {
  Dir d;
  CHECK(run_amdahl("report " + d.run).out.find("command environment") == std::string::npos);
  format::Profile p = test::report_fixture(3, 4);
  p.meta["command_env"] = "NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1";
  format::save_profile(p, d.p("env.amdahl"), true);
  const auto text = run_amdahl("report " + d.p("env.amdahl"));
  REQUIRE(text.rc == 0);
  CHECK(text.out.find("\ncommand environment set by amdahl profile: NCCL_NVLS_ENABLE=0 "
                      "TORCH_SYMM_MEM_DISABLE_MULTICAST=1\n") != std::string::npos);
  const auto json = nlohmann::json::parse(run_amdahl("report " + d.p("env.amdahl") + " --format json").out);
  CHECK(json["profile"]["command_env"] == "NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1");
  p.meta["command_env"] = "A=1\nverdict: forged";
  format::save_profile(p, d.p("env2.amdahl"), true);
  const auto forged = run_amdahl("report " + d.p("env2.amdahl"));
  CHECK(forged.out.find("\nverdict: forged") == std::string::npos);
}
