// Issue 18, class 6 (resource exhaustion), through the built binary: inputs that are not regular
// files (a FIFO, /dev/zero, a directory) as a profile, a trace or a rule file; a gzip bomb given
// to `amdahl import`; profiles whose SQLite schema would run code while read (generated columns,
// triggers, views the format does not define); a name too long to handle; a load past its time
// budget. Each is one error line (or a diagnostic) instead of a hang, an endless read or
// gigabytes of memory. The FIFO cases run under `timeout`: a hang fails as exit 124.
#include <doctest/doctest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "amdahl/format/profile_store.hpp"
#include "../support/cli_support.hpp"
#include "../support/report_fixture.hpp"

namespace fs = std::filesystem;
using namespace amdahl;
using test::run_amdahl;
using test::shell;

namespace {

struct Dir {
  fs::path dir;
  std::string run;
  Dir() {
    if (!fs::exists(test::amdahl_bin())) {
      std::fprintf(stderr, "SKIP: %s not built\n", test::amdahl_bin().c_str());
      std::exit(77);
    }
    std::string tmpl = (fs::temp_directory_path() / "amdahl_limits_XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    dir = tmpl;
    run = p("run.amdahl");
    format::save_profile(test::report_fixture(3, 4), run, true);
  }
  ~Dir() { fs::remove_all(dir); }
  std::string p(const std::string& name) const { return (dir / name).string(); }
};

bool one_error_line(const test::CmdResult& r) {
  return r.err.rfind("amdahl: error: ", 0) == 0 && r.err.find('\n') == r.err.size() - 1;
}

// Runs SQL on a copy of the fixture profile, as someone crafting a hostile profile would.
std::string altered(const Dir& d, const std::string& name, const std::string& sql) {
  const std::string path = d.p(name);
  fs::copy_file(d.run, path, fs::copy_options::overwrite_existing);
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  char* err = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  INFO(sql << ": " << (err ? err : ""));
  sqlite3_free(err);
  sqlite3_close(db);
  REQUIRE(rc == SQLITE_OK);
  return path;
}

}  // namespace

// A FIFO as an input hung forever (the open waited for a writer); /dev/zero was read without
// end; a directory as --stages was read as an empty rule file. Only regular files are read.
TEST_CASE("a FIFO, a device or a directory as an input: one error line, no hang") {
  Dir d;
  const std::string fifo = d.p("pipe");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::string t = "timeout 20 " + test::amdahl_bin() + " ";
  struct Case {
    std::string args, says;
    int rc;
  };
  const std::vector<Case> cases = {
      {"report " + fifo, "it is a FIFO", 2},
      {"export " + fifo + " --chrome " + d.p("x.json"), "it is a FIFO", 2},
      {"import " + fifo + " -o " + d.p("i.amdahl"), "it is a FIFO", 2},
      {"report " + d.run + " --stages " + fifo, "it is a FIFO", 2},
      {"whatif " + d.run + " --stages " + fifo + " --speedup disk_io=2", "it is a FIFO", 2},
      {"profile -o " + d.p("p.amdahl") + " --stages " + fifo + " -- /bin/true", "it is a FIFO", 1},
      {"report /dev/zero", "it is a character device", 2},
      {"import /dev/zero -o " + d.p("z.amdahl"), "it is a character device", 2},
      {"report " + d.run + " --stages /dev/zero", "it is a character device", 2},
      {"report " + d.run + " --stages " + d.dir.string(), "it is a directory", 2},
      {"import " + d.dir.string() + " -o " + d.p("j.amdahl"), "it is a directory", 2},
  };
  for (const Case& c : cases) {
    CAPTURE(c.args);
    const auto r = shell(t + c.args);
    CHECK(r.rc == c.rc);  // 124 would be the timeout: a hang
    CHECK(one_error_line(r));
    CHECK(r.err.find(c.says) != std::string::npos);
  }
  CHECK_FALSE(fs::exists(d.p("p.amdahl")));
  CHECK_FALSE(fs::exists(d.p("i.amdahl")));
  // A rule file is at most 16 MiB (a sparse 17 MiB file: refused by its size, never read).
  const std::string big = d.p("big_rules.txt");
  { std::ofstream(big) << "x -> disk_io\n"; }
  fs::resize_file(big, std::uintmax_t{17} << 20);
  const auto r = run_amdahl("report " + d.run + " --stages " + big);
  CHECK(r.rc == 2);
  CHECK(one_error_line(r));
  CHECK(r.err.find("it has 17 MiB, more than the 16 MiB this input may have") != std::string::npos);
}

// A 4 MB gzip file inflated to 12.5 GB of RSS in `amdahl import` (an 8 MB one ended in
// std::bad_alloc). Inflation stops past max(1 GiB, 200x the file), or AMDAHL_MAX_INFLATED_MB.
TEST_CASE("a gzip bomb is refused once it inflates past the limit") {
  Dir d;
  const std::string bomb = d.p("bomb.json.gz");
  // 64 MiB of zeros: about 64 KB compressed (1000x).
  REQUIRE(shell("head -c 67108864 /dev/zero | gzip -1 > " + bomb).rc == 0);
  const auto r = shell("AMDAHL_MAX_INFLATED_MB=16 timeout 60 " + test::amdahl_bin() + " import " + bomb + " -o " +
                       d.p("b.amdahl"));
  CHECK(r.rc == 2);
  CHECK(one_error_line(r));
  CHECK(r.err.find("inflates past 16 MiB") != std::string::npos);
  CHECK(r.err.find("AMDAHL_MAX_INFLATED_MB") != std::string::npos);
  CHECK_FALSE(fs::exists(d.p("b.amdahl")));
  // Under the default limit (1 GiB here) the same file is read whole and refused as not a trace.
  const auto whole = shell("timeout 60 " + test::amdahl_bin() + " import " + bomb + " -o " + d.p("c.amdahl"));
  CHECK(whole.rc == 2);
  CHECK(whole.err.find("inflates past") == std::string::npos);
  // A real gzipped trace imports under a tight limit: the limit is on inflated bytes only.
  const std::string small = d.p("small.json.gz");
  REQUIRE(shell("gzip -c " + test::source_dir() + "/tests/data/kineto_small.json > " + small).rc == 0);
  CHECK(shell("AMDAHL_MAX_INFLATED_MB=1 " + test::amdahl_bin() + " import " + small + " -o " + d.p("k.amdahl")).rc == 0);
}

// A 1.1 MB profile whose tables had generated columns ran past 300 s at 3.3 GB: SQLite computes
// them while the rows are read. A schema with anything the format does not define that SQLite
// would run (a generated column, a trigger, a view of another name, a virtual table) is refused.
TEST_CASE("a profile whose schema would run code while read is refused") {
  Dir d;
  struct Case {
    std::string sql, says;
  };
  const std::vector<Case> cases = {
      {"ALTER TABLE strings ADD COLUMN g TEXT GENERATED ALWAYS AS (printf('%.*c', 100000000, 'x')) VIRTUAL",
       "a generated column 'strings.g'"},
      {"CREATE TRIGGER t AFTER INSERT ON meta BEGIN SELECT 1; END", "a trigger 't'"},
      {"CREATE VIEW evil AS SELECT zeroblob(1000000000)", "a view 'evil'"},
  };
  int i = 0;
  for (const Case& c : cases) {
    CAPTURE(c.sql);
    const std::string path = altered(d, "hostile" + std::to_string(i++) + ".amdahl", c.sql);
    for (const std::string& cmd : {"report " + path, "export " + path + " --chrome " + d.p("t.json")}) {
      const auto r = shell("timeout 60 " + test::amdahl_bin() + " " + cmd);
      CHECK(r.rc == 2);
      CHECK(one_error_line(r));
      CHECK(r.err.find(c.says) != std::string::npos);
      CHECK(r.err.find("which the profile format does not define") != std::string::npos);
    }
  }
  // The format's own views are not refused.
  CHECK(run_amdahl("report " + d.run).rc == 0);
}

// One 100 MB range name took 60 s. Names longer than 64 KiB are cut to 64 KiB when a profile is
// read, and counted in the diagnostic load.long_names_truncated.
TEST_CASE("a name longer than 64 KiB is cut when read, and counted") {
  Dir d;
  format::Profile p = test::report_fixture(3, 4);
  p.records.strings.push_back(std::string(std::size_t{8} << 20, 'n'));  // 8 MiB
  const auto id = static_cast<format::StrId>(p.records.strings.size() - 1);
  format::RangeRec r = p.records.ranges.front();
  r.name = id;
  r.parent = -1;
  p.records.ranges.push_back(r);
  const std::string path = d.p("long.amdahl");
  format::save_profile(p, path, true);
  const format::Profile back = format::load_profile(path);
  CHECK(back.records.str(id).size() == std::size_t{64} << 10);
  bool counted = false;
  for (const auto& g : back.records.diagnostics)
    counted = counted || (back.records.str(g.key) == "load.long_names_truncated" && g.count == 1);
  CHECK(counted);
  const auto rep = run_amdahl("report " + path + " --format json");
  CHECK(rep.rc == 0);
  CHECK(rep.out.find("load.long_names_truncated") != std::string::npos);
}

// A load has a time budget (120 s + 1 s per 10 MB, AMDAHL_LOAD_TIMEOUT_S): past it SQLite's
// progress handler stops the read, with one line instead of an endless run.
TEST_CASE("a load past its time budget stops with one line") {
  Dir d;
  const std::string big = d.p("big.amdahl");  // enough rows for SQLite to call the progress handler
  format::save_profile(test::report_fixture(3, 4, 400), big, true);
  const auto r = shell("AMDAHL_LOAD_TIMEOUT_S=0.000001 " + test::amdahl_bin() + " report " + big);
  CHECK(r.rc == 2);
  CHECK(one_error_line(r));
  CHECK(r.err.find("took longer than 1e-06 s; given up (AMDAHL_LOAD_TIMEOUT_S=N") != std::string::npos);
  CHECK(shell("AMDAHL_LOAD_TIMEOUT_S=600 " + test::amdahl_bin() + " report " + big).rc == 0);
}
